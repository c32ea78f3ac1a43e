package dev.moroutine.internal;

import dev.moroutine.WorkerHandle;

/**
 * Where tasks run: the one dispatch interface. Today every worker is a {@link ThreadWorker}; a
 * child JVM or a cluster member would implement this too, without touching the public API.
 */
public non-sealed interface Worker extends WorkerHandle {

    /**
     * Queues an execution. Never blocks, takes no lock.
     *
     * @param execution the execution; it completes when it has run, failed, or been cancelled
     * @throws java.util.concurrent.RejectedExecutionException if the worker no longer accepts tasks
     */
    void dispatch(Execution<?> execution);
}
