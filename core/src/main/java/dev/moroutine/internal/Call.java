package dev.moroutine.internal;

import dev.moroutine.Mo;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The only implementation of {@link Task}: a moroutine's definition, its arguments (values, or
 * {@code Call}s for task-args) and, optionally, the worker it is assigned to. Immutable.
 *
 * <p>A {@code Call} is a task-arg cache key by identity, so it deliberately keeps
 * {@link Object#equals} and {@link Object#hashCode}.
 *
 * @param <R> the result type
 */
public final class Call<R> implements Task<R> {

    private final Definition definition;
    private final Object[] args;
    private final ThreadWorker assigned;

    Call(Definition definition, Object[] args, ThreadWorker assigned) {
        this.definition = definition;
        this.args = args;
        this.assigned = assigned;
    }

    /**
     * The task as a {@code Call}.
     *
     * @param task a task
     * @param <R> the result type
     * @return the same object
     * @throws NullPointerException if {@code task} is null
     * @throws IllegalArgumentException if it was not made by a moroutine
     */
    public static <R> Call<R> of(Task<R> task) {
        Objects.requireNonNull(task, "task");
        if (task instanceof Call<R> call) {
            return call;
        }
        throw new IllegalArgumentException(task.getClass().getName() + " is not a task made by a moroutine; "
                + "make tasks with a moroutine's call(…) instead of implementing Task");
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
        return new Call<>(definition, args, worker);
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

    @Override
    public CompletableFuture<R> future() {
        return dispatch();
    }

    @Override
    public R join() {
        return Waiting.await(dispatch());
    }

    private Execution<R> dispatch() {
        Execution<R> execution = new Execution<>(this);
        (assigned != null ? assigned : definition.dedicatedWorker()).dispatch(execution);
        return execution;
    }

    @Override
    public String toString() {
        return "task " + definition + (assigned != null ? " assigned to " + assigned : "");
    }
}
