package dev.moroutine.internal;

import dev.moroutine.Mo;
import dev.moroutine.Signal;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The implementation of {@link Task} for value moroutines (and, through {@link StreamCall}, for
 * streaming ones): a moroutine's definition, its arguments (values, or {@link TaskArg}s) and,
 * optionally, the worker it is assigned to and its timeout. Immutable.
 *
 * <p>A {@code Call} is a task-arg cache key by identity, so it deliberately keeps
 * {@link Object#equals} and {@link Object#hashCode}.
 *
 * @param <R> the result type
 */
public sealed class Call<R> implements Task<R> permits StreamCall {

    private final Definition definition;
    private final Object[] args;
    private final ThreadWorker assigned;
    private final Duration timeout; // null: the pool's, or none
    /** Whether an argument is a {@link Signal}, which each run replaces by a view it can stop; found once. */
    private final boolean takesSignal;

    Call(Definition definition, Object[] args, ThreadWorker assigned, Duration timeout) {
        this.definition = definition;
        this.args = args;
        this.assigned = assigned;
        this.timeout = timeout;
        this.takesSignal = anySignal(args);
    }

    private static boolean anySignal(Object[] args) {
        for (Object arg : args) {
            if (arg instanceof Signal) {
                return true;
            }
        }
        return false;
    }

    boolean takesSignal() {
        return takesSignal;
    }

    /**
     * The task as a {@code Call}.
     *
     * @param task a task
     * @param <R> the result type
     * @return the same object
     * @throws NullPointerException if {@code task} is null
     * @throws IllegalArgumentException if it is a channel, which is not run by itself
     */
    public static <R> Call<R> of(Task<R> task) {
        return switch (Objects.requireNonNull(task, "task")) {
            case Call<R> call -> call;
            case ChannelImpl<?> channel -> throw new IllegalArgumentException(channel + " is not run by itself: pass it as"
                    + " the Stream or Iterable argument of the tasks that consume it, or join() it to consume it on this thread");
        };
    }

    /**
     * This call pinned to a pool worker.
     *
     * @param handle a handle from a pool's {@code workers()}
     * @return a copy that runs only on that worker
     * @throws IllegalArgumentException if {@code handle} is not a moroutine pool's worker
     */
    public Call<R> assignedTo(WorkerHandle handle) {
        if (!(handle instanceof ThreadWorker worker) || worker.pool() == null) {
            throw new IllegalArgumentException(handle + " is not a worker of a moroutine pool; use a handle from Runner.workers()");
        }
        return copy(worker, timeout);
    }

    @Override
    public Call<R> withTimeout(Duration timeout) {
        return copy(assigned, Timeouts.check(timeout));
    }

    /** A copy with another assignment and timeout; subclasses keep their own settings. */
    Call<R> copy(ThreadWorker worker, Duration timeout) {
        return new Call<>(definition, args, worker, timeout);
    }

    /**
     * The moroutine this is a call of.
     *
     * @return the moroutine
     */
    public Mo moroutine() {
        return definition.moroutine();
    }

    Definition definition() {
        return definition;
    }

    Object[] args() {
        return args;
    }

    ThreadWorker assigned() {
        return assigned;
    }

    /** The task's own timeout, or null. */
    Duration timeout() {
        return timeout;
    }

    /** Where this call runs when it is not given to a pool: its assignment, or its dedicated worker. */
    Worker defaultWorker() {
        return assigned != null ? assigned : definition.dedicatedWorker();
    }

    /** The stream setting there: an assigned worker's pool's, which holds for every run on that pool; else the default. */
    private int defaultHighWaterMark() {
        return assigned != null ? assigned.pool().highWaterMark() : Streams.DEFAULT_HIGH_WATER_MARK;
    }

    @Override
    public CompletableFuture<R> future() {
        return submitTo(defaultWorker(), defaultHighWaterMark());
    }

    @Override
    public R join() {
        return runOn(defaultWorker(), defaultHighWaterMark());
    }

    /**
     * Sends this call to a worker and waits for its result.
     *
     * @param worker where it runs
     * @param highWaterMark the pool's stream setting, for streaming calls that do not set their own
     * @return the result
     */
    R runOn(Worker worker, int highWaterMark) {
        return Waiting.await(send(worker));
    }

    /**
     * Sends this call to a worker without waiting.
     *
     * @param worker where it runs
     * @param highWaterMark the pool's stream setting, for streaming calls that do not set their own
     * @return the future of its result
     */
    CompletableFuture<R> submitTo(Worker worker, int highWaterMark) {
        return prepare(highWaterMark).sendTo(worker);
    }

    /**
     * Builds this call's execution, attaching the channel ends among its arguments, without sending
     * it anywhere yet: a batch builds all of its executions first, so that no consumer can drain a
     * channel before the batch's other consumers of it have attached.
     *
     * @param highWaterMark the pool's stream setting, for streaming calls that do not set their own
     * @return the execution, ready to send
     */
    Prepared<R> prepare(int highWaterMark) {
        Execution<R> execution = new Execution<>(this, null);
        return new Prepared<>(execution, execution);
    }

    /**
     * A call's execution, built but not yet sent to a worker.
     *
     * @param <R> the result type
     */
    static class Prepared<R> {
        private final Execution<?> execution;
        private final CompletableFuture<R> result;

        Prepared(Execution<?> execution, CompletableFuture<R> result) {
            this.execution = execution;
            this.result = result;
        }

        /** The call it is an execution of. */
        Call<?> call() {
            return execution.call();
        }

        /** Sends the execution to {@code worker}; if refused, fails it and throws. */
        CompletableFuture<R> sendTo(Worker worker) {
            dispatch(worker, execution);
            return result;
        }

        /** Fails the execution without sending it, releasing what it attached. */
        void abandon(RuntimeException why) {
            execution.completeExceptionally(why);
        }
    }

    private Execution<R> send(Worker worker) {
        Execution<R> execution = new Execution<>(this, null);
        dispatch(worker, execution);
        return execution;
    }

    /** Hands an execution to a worker; if refused, fails it, so what it attached is released. */
    static void dispatch(Worker worker, Execution<?> execution) {
        try {
            worker.dispatch(execution);
        } catch (RuntimeException refused) {
            execution.completeExceptionally(refused);
            throw refused;
        }
    }

    @Override
    public String toString() {
        return "task " + definition + (assigned != null ? " assigned to " + assigned : "");
    }
}
