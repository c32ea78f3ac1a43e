package dev.moroutine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * A pool of workers, made by {@link Moroutine#workers(int)}. Each task goes to the worker its
 * {@link Balancer} picks (or the one it is {@linkplain Moroutine#assign assigned} to); each worker
 * runs its tasks one at a time, in the order they reached it.
 *
 * <pre>{@code
 * try (Pool pool = workers(4)) {
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
public interface Pool extends AutoCloseable {

    /**
     * Runs a task on a worker of this pool and waits for its result. The wait spins briefly on a
     * platform thread, then parks; it is safe on virtual threads and does not respond to interrupts.
     * A {@link dev.moroutine.stream.Channel} runs on no worker: as its {@code join()} does, this
     * attaches a consumer on the calling thread and returns its end.
     *
     * @param task the task
     * @param <R> the result type
     * @return the result
     * @throws TaskFailedException if the moroutine threw (the cause, with the worker's stack), or ran
     *     over its timeout (the cause is a {@link java.util.concurrent.TimeoutException})
     * @throws java.util.concurrent.CancellationException if the task was stopped from outside before
     *     it finished: its pool was terminated or ran out of shutdown time
     * @throws java.util.concurrent.RejectedExecutionException if the pool is closed
     * @throws IllegalArgumentException if the task is assigned to a worker of another pool
     * @throws IllegalStateException if called from a task on the very worker the task is sent to,
     *     where it would wait for itself forever
     * @throws NullPointerException if {@code task} is null
     */
    <R> R run(Task<R> task);

    /**
     * Sends a task to a worker of this pool without waiting. A {@link dev.moroutine.stream.Channel}
     * runs on no worker: this attaches a consumer on the calling thread, as its {@code future()} does.
     *
     * @param task the task
     * @param <R> the result type
     * @return a future of the result; it completes exceptionally with the moroutine's exception, a
     *     {@link java.util.concurrent.TimeoutException} if the task ran over its timeout, or a
     *     {@link java.util.concurrent.CancellationException} if the pool stopped first.
     *     Cancelling it before the task starts skips the task; {@code cancel(true)} interrupts a
     *     running one (see {@link Task#future()})
     * @throws java.util.concurrent.RejectedExecutionException if the pool is closed
     * @throws IllegalArgumentException if the task is assigned to a worker of another pool
     * @throws NullPointerException if {@code task} is null
     */
    <R> CompletableFuture<R> submit(Task<R> task);

    /**
     * Sends every task, then waits for all of them and returns their results in the order of
     * {@code tasks}. If some fail, it still waits for the rest, then throws for the first failure
     * in list order, with the other failures attached as suppressed exceptions. When it throws, it
     * first closes the live streams it opened for stream tasks and channels (whose consumers attach
     * on the calling thread), which nobody else could close.
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
     * A view of this pool as an {@link ExecutorService}, for code that takes
     * one: {@code CompletableFuture.supplyAsync(supplier, executor)}, a library's executor setting,
     * {@code invokeAll}. Each plain {@link Runnable} or {@link java.util.concurrent.Callable} runs on
     * one of this pool's workers, placed by its {@link Balancer} like any task, one at a time with
     * the worker's other tasks. Every call returns a new view with its own lifecycle: take one
     * and keep it, as each view stays registered with the pool until it terminates or the pool closes.
     *
     * <pre>{@code
     * try (Pool pool = workers(4)) {
     *     ExecutorService executor = pool.asExecutorService();
     *     CompletableFuture<String> page = CompletableFuture.supplyAsync(() -> render(order), executor);
     * }
     * }</pre>
     *
     * <p><b>Shutting the view down does not close the pool.</b> The pool belongs to the code that
     * made it and is usually shared by moroutine tasks and other views, while many libraries shut
     * down the executor they were given when they stop; so {@code shutdown()} and
     * {@code shutdownNow()} stop only what went through this view. The view's
     * {@code shutdown()} rejects new tasks and lets accepted ones run; {@code shutdownNow()} also
     * interrupts the running ones and returns those that had not started, in no particular order,
     * taken back so that their workers skip them (a {@code Future} from {@code submit} among them
     * is not cancelled: run it elsewhere or cancel it). {@code isTerminated()} and
     * {@code awaitTermination} follow the view's own tasks, and {@code close()} is the JDK's
     * default: shut down, then wait for them (called from one of those tasks, which would wait for
     * itself, it throws {@link IllegalStateException}). Closing or terminating the pool shuts every
     * view down.
     *
     * <p>Unlike moroutine tasks:
     * <ul>
     * <li>An exception thrown by a {@code Runnable} given to {@code execute} goes, as in
     *     {@link java.util.concurrent.ThreadPoolExecutor}, to the worker thread's
     *     {@linkplain Thread#getUncaughtExceptionHandler() uncaught-exception handler}, and the
     *     worker goes on (after a {@link VirtualMachineError}, on a new thread, as for a moroutine);
     *     {@code submit} and {@code invokeAll} report it through their future.</li>
     * <li>A task that the pool's {@link #terminate()} (or its shutdown timeout) stops before it
     *     starts is dropped. A {@code Future} made by {@code submit}, {@code invokeAll} or
     *     {@code invokeAny} is then cancelled; a {@code CompletableFuture} from {@code supplyAsync}
     *     cannot be reached and never completes. A graceful {@link #close()} runs every task
     *     accepted before it.</li>
     * <li>A balancer sees these tasks as calls of an internal moroutine: {@link Moroutine#isTask}
     *     is {@code false} for every moroutine of yours, so a custom balancer places them with its
     *     fallback and must not fail on tasks it does not know.</li>
     * <li>A lambda is a heap object, not a moroutine's name and arguments, so these tasks run
     *     in-process only: a pool of isolated JVMs or cluster members will not accept them.</li>
     * <li>Waiting on this view from a task running on the same pool ({@code get()} of its future,
     *     {@code invokeAll}, {@code awaitTermination}, {@code close()}) may wait forever for a task
     *     queued behind the waiting one on its worker: nothing detects it, as with any fixed-size
     *     executor.</li>
     * </ul>
     *
     * <p>Memory consistency: actions of a thread before it hands a task to the view happen-before
     * the task runs, and the task's actions happen-before its future completes and before
     * {@code awaitTermination} returns {@code true}.
     *
     * @return a new executor view of this pool; rejects every task if the pool is closed
     */
    ExecutorService asExecutorService();

    /**
     * The worker that would run {@code task} if it were given to this pool now: the worker it is
     * {@linkplain Moroutine#assign assigned} to, or else the one this pool's {@link Balancer}
     * picks. With a balancer that decides from the task alone (a key-affinity balancer), this is
     * where the task will run, so a batch can be grouped by worker first and each group run there
     * (with {@link Moroutine#assign}) to keep the affinity:
     *
     * <pre>{@code
     * Map<WorkerHandle, List<Task<Integer>>> byWorker = tasks.stream()
     *         .collect(Collectors.groupingBy(pool::workerFor));
     * }</pre>
     *
     * <p>It asks the balancer exactly as a dispatch would, and that is its only side effect: a
     * stateful balancer counts the question as a selection ({@link Moroutine#roundRobin()} moves
     * on by one worker, {@link Moroutine#leastBusy()} rotates its tie-break), so for those the answer
     * is where a dispatch made instead of the question would have gone, not where a later
     * {@link #run} of the same task will go. Nothing is dispatched, and it answers on a closed pool too.
     *
     * @param task the task
     * @return one of {@link #workers()}
     * @throws IllegalArgumentException if the task is assigned to a worker of another pool, or was
     *     not made by a moroutine
     * @throws IllegalStateException if the balancer returns a handle that is not one of this pool's
     * @throws NullPointerException if {@code task} is null
     */
    WorkerHandle workerFor(Task<?> task);

    /**
     * The pool's workers, in index order.
     *
     * @return an unmodifiable list of handles, the same for the pool's lifetime; for a pool whose
     *     workers come and go (the members of a cluster), a snapshot: a worker that joins is added
     *     with the next index, one that leaves is taken out
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
     * {@link System.Logger.Level#WARNING} (logger {@code dev.moroutine.internal.call.WorkerPool}) for each
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
