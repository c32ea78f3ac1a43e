package dev.moroutine;

import java.util.concurrent.CancellationException;

/**
 * A read-only cancellation token, fired once by its {@link AbortController} (or by a pool that
 * begins to close, see {@link Pool#signal()}). Passed as a moroutine argument it stays live on
 * the worker, so a long task can poll {@link #aborted()} or register {@link #onAbort(Runnable)}.
 * There the task sees it through a view that also fires when that run is stopped from outside
 * ({@code cancel(true)} on its future, its {@linkplain Task#withTimeout timeout}, a terminated
 * pool), with a reason that says so; the signal passed in is not fired, since other tasks may share it.
 *
 * <p>Thread-safe. Firing <i>happens-before</i> every {@link #aborted()} that returns {@code true}
 * and every action it runs.
 */
public interface Signal {

    /**
     * Whether the signal has fired.
     *
     * @return {@code true} once aborted
     */
    boolean aborted();

    /**
     * Why the signal fired.
     *
     * @return the reason given to {@link AbortController#abort(String)}, or {@code null} while not aborted
     */
    String reason();

    /**
     * Throws if the signal has fired; a cheap check for loops.
     *
     * @throws CancellationException with the reason, once aborted
     */
    void throwIfAborted();

    /**
     * Runs {@code action} when the signal fires, on the thread that fires it; at once, on this
     * thread, if it has already fired. An action that throws does not stop the others: an exception
     * is logged, an {@link Error} is rethrown to the firing thread after all actions have run.
     *
     * @param action what to run; should be quick and must not block
     * @return a registration whose {@link Registration#close()} removes the action, so that a task
     *     that finishes can leave nothing behind on a long-lived signal
     * @throws NullPointerException if {@code action} is null
     */
    Registration onAbort(Runnable action);

    /** Removes an {@link #onAbort} action; closing twice is harmless. */
    @FunctionalInterface
    interface Registration extends AutoCloseable {
        /** Removes the action if it has not run yet. */
        @Override
        void close();
    }
}
