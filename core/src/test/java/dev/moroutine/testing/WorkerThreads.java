package dev.moroutine.testing;

import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.ThreadWorker;

/** For tests that need the thread behind a thread worker, which the public API does not show. */
public final class WorkerThreads {

    private WorkerThreads() {}

    /**
     * The thread that runs a thread worker's tasks now.
     *
     * @param handle a handle of a pool or dedicated worker of the thread backend
     * @return its current thread
     */
    public static Thread threadOf(WorkerHandle handle) {
        return ((ThreadWorker) handle).thread();
    }
}
