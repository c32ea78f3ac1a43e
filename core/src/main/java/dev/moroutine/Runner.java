package dev.moroutine;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A pool of worker threads, made by {@link Moroutine#workers(int)}. Each task goes to the worker its
 * {@link Balancer} picks (or the one it is {@linkplain Moroutine#assign assigned} to); each worker
 * runs its tasks one at a time, in the order they reached it.
 *
 * <pre>{@code
 * try (Runner pool = workers(4)) {
 *     boolean prime = pool.run(isPrime.call(999_999_937L));
 *     List<Boolean> some = pool.runAll(List.of(isPrime.call(7L), isPrime.call(8L)));
 * }
 * }</pre>
 *
 * <h2>Shutdown</h2>
 * <pre>
 * OPEN ──close()──► CLOSING ──all workers drained──► CLOSED
 *   │                  └──shutdown timeout / interrupt──► interrupt workers, fail unfinished tasks,
 *   │                                                     wait up to 1 s for them to return ──► CLOSED
 *   └──terminate()──► CLOSED (unfinished tasks fail at once)
 * </pre>
 * Both {@link #close()} and {@link #terminate()} fire {@link #signal()}, and from their start the
 * pool rejects new tasks with a {@link java.util.concurrent.RejectedExecutionException}. A task
 * submitted while {@code close()} begins is either rejected that way or accepted and run to
 * completion, never cancelled. A task that fails to start or finish because of a shutdown timeout,
 * an interrupt or {@code terminate()} fails with a {@link java.util.concurrent.CancellationException}
 * that says so.
 *
 * <h2>Errors and timeouts</h2>
 * The blocking calls throw {@link TaskFailedException} when a task failed (its function threw,
 * whatever it threw, or it ran over its timeout) and {@link java.util.concurrent.CancellationException}
 * only when it was stopped from outside (cancelled, or stopped by shutdown): the rule is spelled
 * out under <a href="Task.html#errors">Task</a>. A pool may give its tasks a default timeout
 * ({@link PoolOptions#withTaskTimeout}); see {@link Task#withTimeout}.
 *
 * <p>All methods are thread-safe. Dispatch takes no lock.
 */
public interface Runner extends AutoCloseable {

    /**
     * Runs a task on a worker of this pool and waits for its result. The wait spins briefly on a
     * platform thread, then parks; it is safe on virtual threads and does not respond to interrupts.
     *
     * @param task the task
     * @param <R> the result type
     * @return the result
     * @throws TaskFailedException if the moroutine threw (the cause, with the worker's stack), or ran
     *     over its timeout (the cause is a {@link java.util.concurrent.TimeoutException})
     * @throws java.util.concurrent.CancellationException if the task was stopped from outside before
     *     it finished: its pool was terminated or ran out of shutdown time
     * @throws java.util.concurrent.RejectedExecutionException if the pool is closed
     * @throws IllegalArgumentException if the task is assigned to a worker of another pool, or was
     *     not made by a moroutine
     * @throws IllegalStateException if called from a task on the very worker the task is sent to,
     *     where it would wait for itself forever
     * @throws NullPointerException if {@code task} is null
     */
    <R> R run(Task<R> task);

    /**
     * Sends a task to a worker of this pool without waiting.
     *
     * @param task the task
     * @param <R> the result type
     * @return a future of the result; it completes exceptionally with the moroutine's exception, a
     *     {@link java.util.concurrent.TimeoutException} if the task ran over its timeout, or a
     *     {@link java.util.concurrent.CancellationException} if the pool stopped first.
     *     Cancelling it before the task starts skips the task; {@code cancel(true)} interrupts a
     *     running one (see {@link Task#future()})
     * @throws java.util.concurrent.RejectedExecutionException if the pool is closed
     * @throws IllegalArgumentException if the task is assigned to a worker of another pool, or was
     *     not made by a moroutine
     * @throws NullPointerException if {@code task} is null
     */
    <R> CompletableFuture<R> submit(Task<R> task);

    /**
     * Sends every task, then waits for all of them and returns their results in the order of
     * {@code tasks}. If some fail, it still waits for the rest, then throws for the first failure
     * in list order, with the other failures attached as suppressed exceptions. When it throws, it
     * first closes the live streams it opened for stream tasks, which nobody else could close.
     *
     * @param tasks the tasks
     * @param <R> the common result type
     * @return the results, in order (an unmodifiable list, which may hold nulls)
     * @throws TaskFailedException if a moroutine threw, or ran over its timeout
     * @throws java.util.concurrent.CancellationException if a task was stopped from outside before it
     *     finished: its pool was terminated or ran out of shutdown time
     * @throws java.util.concurrent.RejectedExecutionException if the pool is closed
     * @throws NullPointerException if {@code tasks} or one of them is null
     */
    <R> List<R> runAll(List<? extends Task<? extends R>> tasks);

    /**
     * The pool's workers, in index order.
     *
     * @return an unmodifiable list of handles, the same for the pool's lifetime
     */
    List<WorkerHandle> workers();

    /**
     * The pool's signal: it fires when {@link #close()} or {@link #terminate()} begins. Pass it to
     * long tasks so they can stop early.
     *
     * @return the signal
     */
    Signal signal();

    /**
     * Whether {@link #close()} or {@link #terminate()} has begun.
     *
     * @return {@code true} once the pool rejects new tasks
     */
    boolean isClosed();

    /**
     * Graceful shutdown: rejects new tasks, fires {@link #signal()}, lets every queued and running
     * task finish, and stops the workers (closing their cached {@link AutoCloseable} task-arg
     * values). Blocks until then. A stream task's producer holds its worker until its stream is
     * read to the end or closed, so an unclosed {@link dev.moroutine.stream.LiveStream} holds
     * {@code close()} too: every 10 seconds that it is still waiting, {@code close()} logs a
     * {@link System.Logger.Level#WARNING} (logger {@code dev.moroutine.internal.WorkerPool}) for each
     * worker it waits for, naming the task it runs and, for a stream, the code that opened it.
     *
     * <p>With a shutdown timeout (see {@link PoolOptions#withShutdownTimeout}), tasks still
     * unfinished when it expires fail with a {@link java.util.concurrent.CancellationException}
     * and running ones are interrupted; {@code close()} then waits up to one second more for the
     * interrupted tasks to return and their workers to close their task-arg values. A worker whose
     * task ignores the interrupt that long is left behind, with a warning in the log: its thread
     * closes its values and ends when the task returns. Like
     * {@link java.util.concurrent.ExecutorService#close()}, if the calling thread is interrupted while
     * waiting (or already was), it stops the pool the same way at once, and returns with the
     * interrupt status set. A second {@code close()} during the first waits with it; after the pool
     * is closed or terminated, it returns at once.
     *
     * <p>When {@code close()} returns, every task the pool accepted is complete (its future is done:
     * with its result, its exception, or a {@code CancellationException}), and every worker has
     * stopped and closed its task-arg values, except one left behind as above.
     *
     * @throws IllegalStateException if called from one of this pool's own workers, which would wait
     *     for itself
     */
    @Override
    void close();

    /**
     * Immediate shutdown: rejects new tasks, fails every unfinished task with a
     * {@link java.util.concurrent.CancellationException}, interrupts running ones and fires
     * {@link #signal()}. Does not wait: neither for the interrupted tasks to return nor for the
     * workers to close their task-arg values and end. May be called from a worker.
     */
    void terminate();
}
