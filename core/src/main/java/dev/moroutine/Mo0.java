package dev.moroutine;

import dev.moroutine.internal.Definition;

/**
 * A moroutine of 0 arguments: {@link #call} describes one call as a {@link Task}, which runs on
 * this moroutine's dedicated worker ({@link Task#join()}) or on a pool ({@link Runner#run}).
 *
 * <p>Instances are immutable and thread-safe.
 *
 * @param <R> the result type
 */
public final class Mo0<R> implements Mo {

    /**
     * The function a {@code Mo0} runs. It may throw any exception; the exception fails the call.
     *
     * @param <R> the result type
     */
    @FunctionalInterface
    public interface Body<R> {
        /**
         * Runs the function on a worker.
         *
         * @return the result, which may be {@code null}
         * @throws Exception to fail the call
         */
        R apply() throws Exception;
    }

    private final Definition definition;

    Mo0(Body<R> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, false, (args, pipe) -> body.apply());
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     */
    public Task<R> call() {
        return definition.call(Definition.NO_ARGS);
    }

    @Override
    public String id() {
        return definition.id();
    }

    @Override
    public int arity() {
        return 0;
    }

    @Override
    public String toString() {
        return definition.toString();
    }
}
