package dev.moroutine.internal;

import dev.moroutine.TaskFailedException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/** How callers wait for an execution: spin briefly on platform threads, then park. */
final class Waiting {

    /**
     * A worker that is spinning answers a task in well under a microsecond, while parking and
     * being woken costs tens of microseconds; spinning this long first catches the quick answers.
     * Virtual threads never spin: they would hold their carrier from other virtual threads.
     */
    private static final long SPIN_NANOS = 20_000;

    private Waiting() {}

    static <R> R await(Execution<R> execution) {
        if (!execution.isDone() && !Thread.currentThread().isVirtual()) {
            spin(execution);
        }
        try {
            return execution.join();
        } catch (CompletionException failed) {
            Throwable cause = failed.getCause();
            throw new TaskFailedException(execution.call() + " failed: " + cause, cause);
        } catch (CancellationException cancelled) {
            // join() wraps the stored exception in its own (message "join"); ours says why.
            Throwable why = cancelled.getCause() instanceof CancellationException stored ? stored : cancelled;
            CancellationException here = new CancellationException(why.getMessage());
            here.initCause(why);
            throw here;
        }
    }

    private static void spin(Execution<?> execution) {
        long deadline = System.nanoTime() + SPIN_NANOS;
        for (int spins = 1; !execution.isDone(); spins++) {
            if ((spins & 63) == 0 && System.nanoTime() - deadline > 0) {
                return;
            }
            Thread.onSpinWait();
        }
    }
}
