package dev.moroutine;

import java.util.concurrent.CompletableFuture;

/**
 * One call of a moroutine: the moroutine and its arguments. A task is a description, not a running
 * computation: it runs each time it is joined, submitted or run, and the same task object may be
 * passed as a task-arg to many calls (it is then resolved once per worker and cached there).
 *
 * <p>Tasks are made only by a moroutine's {@code call(…)} methods (and {@link Moroutine#assign});
 * the library rejects other implementations of this interface.
 *
 * <p>A task-arg is cached per worker and keyed by the task object itself: pass the same
 * {@code Task} object to reuse the value, and mind that two moroutines joined directly run on two
 * different dedicated workers, so each resolves the task-arg once for itself. To share one
 * thread-confined value (one database connection) between moroutines, run them on the same pool
 * worker ({@code workers(1)} or {@link Moroutine#assign}).
 *
 * <p>Tasks are immutable and thread-safe. Without an {@link Moroutine#assign assignment},
 * {@link #join()} and {@link #future()} run the task on its moroutine's dedicated worker, one
 * daemon thread per moroutine, started on first use and stopped after an idle time
 * ({@link Moroutine#setDedicatedIdleTimeout}); tasks reaching that worker run one at a time, in the
 * order they arrived.
 *
 * @param <R> the result type
 */
public interface Task<R> {

    /**
     * Runs this task once more, on its moroutine's dedicated worker (or on the worker it is
     * {@linkplain Moroutine#assign assigned} to), without blocking.
     *
     * <p>The future completes with the result, or exceptionally with the moroutine's exception
     * (carrying the worker's stack trace). Cancelling the future before the task starts skips it;
     * cancelling does not interrupt a running task (pass a {@link Signal} for that). The worker
     * completes the future, so dependent stages added with the non-{@code Async} methods may run on
     * the worker thread: use the {@code …Async} variants for anything slow or blocking.
     *
     * @return a future of the result
     */
    CompletableFuture<R> future();

    /**
     * Runs this task once more, like {@link #future()}, and waits for its result. The wait spins
     * briefly on a platform thread and then parks; it is safe on virtual threads and does not
     * respond to interrupts.
     *
     * @return the result
     * @throws TaskFailedException if the moroutine threw; its cause is the moroutine's exception
     *     with the worker's stack, and its own stack is the caller's
     * @throws java.util.concurrent.CancellationException if the task was cancelled or its worker
     *     stopped before it finished
     * @throws java.util.concurrent.RejectedExecutionException if it is assigned to a closed pool's worker
     * @throws IllegalStateException if called on the very worker that must run the task (a moroutine
     *     joining a call of itself, say), where it would wait for itself forever
     */
    R join();
}
