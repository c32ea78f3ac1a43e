package dev.moroutine.internal;

import dev.moroutine.TaskFailedException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/** How callers and idle workers wait: spin briefly (on platform threads only), then park. */
final class Waiting {

    /**
     * A worker that is spinning answers a task in well under a microsecond, while parking and
     * being woken costs tens of microseconds; spinning this long first catches the quick answers.
     * Virtual threads never spin: they would hold their carrier from other virtual threads.
     */
    private static final long SPIN_NANOS = 20_000;

    private Waiting() {}

    static <R> R await(Execution<R> execution) {
        Thread caller = Thread.currentThread();
        if (!execution.isDone() && execution.worker().thread() == caller) {
            execution.cancel("not run");
            throw new IllegalStateException(caller.getName() + " waited for " + execution.call()
                    + ", which is queued behind the task it is running, on the same worker: it would wait for itself."
                    + " Use future() without blocking, or run the inner task on another worker or pool");
        }
        if (!execution.isDone() && !caller.isVirtual()) {
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
        long start = System.nanoTime();
        for (int spins = 1; !execution.isDone() && pause(start, spins, SPIN_NANOS); spins++) {
            // wait
        }
    }

    /**
     * One step of a bounded busy wait that began at {@code startNanos}: spin for the first quarter
     * of the budget, then also yield now and then, because with more runnable threads than cores
     * a thread that only spins can hold the core that the thread it waits for needs.
     *
     * @return {@code false} once the budget is spent: time to park
     */
    static boolean pause(long startNanos, int spins, long budgetNanos) {
        if ((spins & 15) != 0) {
            Thread.onSpinWait();
            return true;
        }
        long waited = System.nanoTime() - startNanos;
        if (waited > budgetNanos) {
            return false;
        }
        if (waited > budgetNanos / 4) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        return true;
    }
}
