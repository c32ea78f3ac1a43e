package dev.moroutine;

import dev.moroutine.internal.call.Call;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One call of a moroutine: the moroutine and its arguments. A task is a description, not a running
 * computation: it runs each time it is joined, submitted or run, and the same task object may be
 * passed as a task-arg to many calls (it is then resolved once per worker and cached there).
 *
 * <p>Tasks are made only by a moroutine's {@code call(…)} methods (and {@link Moroutine#assign} and
 * {@link #withTimeout}, which copy one);
 * the interface is sealed.
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
 * <h2 id="errors">Errors</h2>
 * One rule for every way of running a task. The blocking calls ({@link #join()},
 * {@link Pool#run}, {@link Pool#runAll}) throw {@link TaskFailedException} when the task
 * failed: its function threw (any exception, a {@link java.util.concurrent.CancellationException}
 * from {@link Signal#throwIfAborted()} included: the function chose to stop), or it ran over its
 * {@linkplain #withTimeout timeout} (the cause is then a {@link java.util.concurrent.TimeoutException}).
 * They throw {@link java.util.concurrent.CancellationException} only when the task was stopped
 * from outside before it finished: its future was cancelled, or its pool was terminated or ran
 * out of shutdown time. Futures follow {@link CompletableFuture#supplyAsync}: they fail with the
 * function's exception (a {@code CancellationException} it threw arrives wrapped in a
 * {@link java.util.concurrent.CompletionException}) or the {@code TimeoutException}, and
 * {@link CompletableFuture#isCancelled()} is true only for a task stopped from outside.
 *
 * @param <R> the result type
 */
public sealed interface Task<R> permits dev.moroutine.internal.call.Call, dev.moroutine.stream.StreamTask,
        dev.moroutine.stream.Channel {

    /**
     * Runs this task once more, on its moroutine's dedicated worker (or on the worker it is
     * {@linkplain Moroutine#assign assigned} to), without blocking.
     *
     * <p>The future completes with the result, or exceptionally with the moroutine's exception
     * (carrying the worker's stack trace; see <a href="#errors">Errors</a>). Cancelling the future
     * before the task starts skips it; {@code cancel(true)} on a running task also interrupts it
     * and fires its {@link Signal} arguments, for this run only (the interrupt never reaches the
     * worker's next task), while {@code cancel(false)} lets it run on. Either way the future fails
     * at once with a {@link java.util.concurrent.CancellationException}. Completing the future
     * yourself ({@code complete}, {@code orTimeout}) does not stop the task: use
     * {@link #withTimeout}. The worker (or the canceller, or the timer) completes the future, so
     * dependent stages added with the non-{@code Async} methods may run on that thread: use the
     * {@code …Async} variants for anything slow or blocking.
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
     * @throws TaskFailedException if the moroutine threw, or ran over its timeout; its cause is the
     *     moroutine's exception with the worker's stack (or a
     *     {@link java.util.concurrent.TimeoutException}), and its own stack is the caller's
     * @throws java.util.concurrent.CancellationException if the task was stopped from outside
     *     before it finished: cancelled, or its worker stopped
     * @throws java.util.concurrent.RejectedExecutionException if it is assigned to a closed pool's worker
     * @throws IllegalStateException if called on the very worker that must run the task (a moroutine
     *     joining a call of itself, say), where it would wait for itself forever
     */
    R join();

    /**
     * This task with a timeout, counted from the moment a worker starts running it (time spent
     * queued does not count). When it expires, the task is stopped, for this run only: its worker
     * thread is interrupted, its {@link Signal} arguments fire (on the worker, a signal argument is
     * a view of the one passed in; the caller's own signal, which other tasks may share, does not
     * fire), and it fails with a {@link java.util.concurrent.TimeoutException} that names the task
     * and the timeout: {@link #join()} and {@link Pool#run} throw a {@link TaskFailedException}
     * with that cause, a future fails with it, as with {@link CompletableFuture#orTimeout}. A run
     * whose future was completed before (with {@code cancel(false)}, {@code complete} or
     * {@code orTimeout}) is stopped all the same, and its future keeps what it has. The worker goes
     * on with its next task as soon as the function returns; a function that neither checks its
     * signal nor responds to interrupts keeps its worker until it returns.
     *
     * <p>The timeout replaces the pool's ({@link PoolOptions#withTaskTimeout}). It applies each
     * time the task is run; a task used as a task-arg runs within the task that takes it, under
     * that task's timeout. Like {@link Moroutine#assign}, this returns a copy: the task is not changed.
     *
     * @param timeout how long a run may take, positive
     * @return a copy of this task with the timeout
     * @throws IllegalArgumentException if {@code timeout} is zero or negative, or this is a
     *     {@link dev.moroutine.stream.Channel}, which is not run by itself
     * @throws NullPointerException if {@code timeout} is null
     */
    default Task<R> withTimeout(Duration timeout) {
        return Call.of(this).withTimeout(timeout);
    }
}
