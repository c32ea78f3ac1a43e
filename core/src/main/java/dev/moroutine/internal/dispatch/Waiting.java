package dev.moroutine.internal.dispatch;

import dev.moroutine.TaskFailedException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;

/** How callers and idle threads wait: spin briefly (platform threads only, see {@link SpinBudget}), then park. */
public final class Waiting {

    private Waiting() {}

    /**
     * Waits for an execution's result, translating its failure into exceptions whose own stack is
     * the caller's.
     *
     * @param execution a dispatched execution
     * @param <R> the result type
     * @return its result
     * @throws IllegalStateException if the caller is the execution's own worker, which would wait for itself
     */
    public static <R> R await(Execution<R> execution) {
        if (!execution.isDone() && execution.worker().isCurrent()) {
            execution.cancel("not run");
            throw new IllegalStateException(Thread.currentThread().getName() + " waited for " + execution.invocation()
                    + ", which is queued behind the task it is running, on the same worker: it would wait for itself."
                    + " Use future() without blocking, or run the inner task on another worker or pool");
        }
        try {
            return execution.join();
        } catch (CompletionException failed) {
            // join() wraps the stored failure, except a CompletionException the function threw, which may have no cause.
            Throwable cause = failed.getCause() != null ? failed.getCause() : failed;
            throw new TaskFailedException(execution.invocation() + " failed: " + cause, cause);
        } catch (CancellationException cancelled) {
            // join() wraps the stored exception in its own (message "join"); ours says why.
            Throwable why = cancelled.getCause() instanceof CancellationException stored ? stored : cancelled;
            CancellationException here = new CancellationException(why.getMessage());
            here.initCause(why);
            throw here;
        }
    }

    /**
     * Spins until {@code future} is done or the budget runs out; virtual threads never spin (they
     * would hold their carrier from other virtual threads).
     *
     * @param future what to wait for
     * @param budget how long to spin: adapted to how spinning pays, or fixed if it is {@linkplain SpinBudget#yielding yielding}
     * @param feed what the thread does itself at each step of its spin (a step that found something
     *     to do does not pause, but the budget still ends the spin); null for nothing
     */
    public static void spinUntilDone(Future<?> future, SpinBudget budget, Feed feed) {
        if (future.isDone() || Thread.currentThread().isVirtual()) {
            return;
        }
        long limit = budget.next();
        long start = System.nanoTime();
        if (feed != null) {
            feed.waiting();
        }
        try {
            for (int spins = 1; ; spins++) {
                if (future.isDone()) {
                    budget.ended(start, limit, true);
                    return;
                }
                boolean found = feed != null && feed.poll();
                if (found ? System.nanoTime() - start >= limit : !budget.pause(start, spins, limit)) {
                    break;
                }
            }
            budget.ended(start, limit, false);
        } finally {
            if (feed != null) {
                feed.stopped();
            }
        }
    }

    /**
     * One step of a bounded busy wait that began at {@code startNanos} with {@code budget}: spin
     * for its {@linkplain SpinBudget#spinFirst first part}, then also yield now and then, because with more runnable threads than
     * cores a thread that only spins can hold the core that the thread it waits for needs; but not
     * while the budget's yields have been taking longer than the budget (the core went to another
     * process: see {@link SpinBudget}), which it learns from timing each yield.
     *
     * @param startNanos when the wait began ({@link System#nanoTime()})
     * @param spins the steps taken so far, from 1
     * @param budgetNanos how long the wait may spin
     * @return {@code false} once the budget is spent: time to park
     */
    static boolean pause(SpinBudget budget, long startNanos, int spins, long budgetNanos) {
        if ((spins & 15) != 0) {
            Thread.onSpinWait();
            return true;
        }
        return pauseByClock(budget, startNanos, budgetNanos);
    }

    /**
     * Like {@link #pause}, at a step that reads the clock: every 16th of short steps, every one of
     * long steps ({@link SpinBudget#pauseAfterSpin}).
     */
    static boolean pauseByClock(SpinBudget budget, long startNanos, long budgetNanos) {
        long now = System.nanoTime();
        long waited = now - startNanos;
        if (waited > budgetNanos) {
            return false;
        }
        if (waited > Math.min(budget.spinFirst(), budgetNanos / 4) && budget.yieldsPay()) { // a shrunken budget's quarter, at most
            Thread.yield();
            budget.yielded(System.nanoTime() - now); // the clock was just read: a second read before the yield adds nothing
        } else {
            Thread.onSpinWait();
        }
        return true;
    }
}
