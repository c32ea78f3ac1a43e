package dev.moroutine.internal.dispatch;

import dev.moroutine.WorkerHandle;
import java.util.concurrent.TimeUnit;

/**
 * The seam: where tasks run. A backend (threads today; a child JVM, a cluster member or a server
 * connection next) implements this interface and nothing else; the pool, calls, executions and
 * streams reach workers only through it. An {@link Execution} crosses it as a value: its
 * {@link Invocation} (the moroutine's id and arguments) and, for each argument that is a stream,
 * an {@link Endpoint}, whose {@link Endpoint.Binding} the execution made when it was built. The
 * thread backend runs an execution in this package ({@code Execution.run}, which opens those
 * bindings on the worker); a backend in another process instead sends the invocation and completes
 * the execution with the answer. A backend outside this package cannot yet run an execution
 * in-process, nor carry a stream endpoint across a process: both come with the first backend that
 * needs them.
 *
 * <p>Implementations are thread-safe: any thread may dispatch, stop, or read a worker.
 */
public non-sealed interface Worker extends WorkerHandle {

    /**
     * Queues an execution, or refuses it. Never blocks, takes no lock. It first calls
     * {@link Execution#sentTo} (which records the worker, and refuses an execution that would wait
     * for itself there), and {@link Execution#admitted} once it accepts the execution, before
     * queueing it. The worker runs its executions one at a time, in the order they were queued (a
     * thread worker may leave one that its pool {@linkplain WorkerGroup#sharesWork shares} to an idle
     * sibling, which then runs it instead), and completes every one it accepted exactly once (run, failed, or cancelled when it stops), also
     * one whose run rethrew a {@link VirtualMachineError} without completing it. A run's
     * bookkeeping ({@code Execution.run}'s {@code beforeCompletion}) takes it out of
     * {@link #activeCount()} before its future completes, so whoever sees a task complete sees the
     * count without it.
     *
     * @param execution the execution
     * @throws java.util.concurrent.RejectedExecutionException if the worker no longer accepts tasks;
     *     the message begins with the reason it was given to stop and names the task. A refused
     *     execution was not admitted, so it may be sent to another worker.
     */
    void dispatch(Execution<?> execution);

    /**
     * Whether the calling thread is the one running this worker's tasks: a caller that waits for a
     * task queued here would wait for itself.
     *
     * @return {@code true} on this worker's own thread
     */
    boolean isCurrent();

    /**
     * Interrupts the run in progress. Called only from an execution's stop hand-shake (see
     * {@link Execution}), which guarantees that the run it means is still this worker's current one.
     * The worker clears the interrupt when the run has returned, so that it never reaches the next one.
     */
    void interruptRun();

    /**
     * How long a caller waiting for one of this worker's answers spins before it parks.
     *
     * @return the adaptive budget
     */
    SpinBudget callerSpin();

    /**
     * What a caller waiting for one of this worker's answers does while it spins: a worker whose
     * answers another thread of its own reads (a worker JVM's pump) lets the caller read them,
     * which spares the answer a hand-off through that thread.
     *
     * @return the feed, shared by all callers of this worker; null (the default) for nothing
     */
    default Feed callerFeed() {
        return null;
    }

    /**
     * The pool this worker belongs to: the very group its backend was started with, by which the
     * pool tells its own workers from another pool's.
     *
     * @return the pool's settings, or null for a moroutine's dedicated worker
     */
    WorkerGroup group();

    /**
     * Graceful stop: accepted executions still run, new ones are refused. Does nothing once
     * stopping or stopped.
     *
     * @param reason why, for the messages of refused executions
     */
    void drain(String reason);

    /**
     * Immediate stop: executions queued or running are cancelled (with messages that begin with
     * {@code reason}), the running one interrupted.
     *
     * @param reason why, for the messages of cancelled executions
     */
    void forceStop(String reason);

    /**
     * Waits until the worker has stopped and released what it held (its task-arg values).
     *
     * @param timeout how long to wait
     * @param unit its unit
     * @return whether it stopped in time
     * @throws InterruptedException if the caller is interrupted
     */
    boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Whether the worker has stopped and released what it held.
     *
     * @return {@code true} once stopped
     */
    boolean isStopped();

    /**
     * The execution running now, for messages that say what holds a worker.
     *
     * @return the execution, or null
     */
    Execution<?> running();
}
