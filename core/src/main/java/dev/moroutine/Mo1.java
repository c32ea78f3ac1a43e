package dev.moroutine;

import dev.moroutine.internal.Definition;

/**
 * A moroutine of 1 argument: {@link #call} describes one call as a {@link Task}, which runs on
 * this moroutine's dedicated worker ({@link Task#join()}) or on a pool ({@link Runner#run}).
 *
 * <p>Every argument may also be given as a {@link Task} of the parameter's type (a <em>task-arg</em>):
 * it runs on the worker that runs this call, once per worker, and its value is cached there.
 * There is one {@code call} overload for each choice of value or task per position.
 *
 * <p>Instances are immutable and thread-safe.
 *
 * @param <A> the type of the first argument
 * @param <R> the result type
 */
public final class Mo1<A, R> implements Mo {

    /**
     * The function a {@code Mo1} runs. It may throw any exception; the exception fails the call.
     *
     * @param <A> the type of the first argument
     * @param <R> the result type
     */
    @FunctionalInterface
    public interface Body<A, R> {
        /**
         * Runs the function on a worker.
         *
         * @param a the first argument
         * @return the result, which may be {@code null}
         * @throws Exception to fail the call
         */
        R apply(A a) throws Exception;
    }

    /**
     * The arguments of one call of this moroutine, read with {@link #args(Task)}. Immutable.
     *
     * @param <A> the type of the first argument
     */
    public static final class Args<A> {
        private final Definition.Arguments arguments;

        private Args(Definition.Arguments arguments) {
            this.arguments = arguments;
        }

        /**
         * The first argument.
         *
         * @return its value
         * @throws IllegalArgumentException if it was given as a task-arg, whose value exists only on a worker
         */
        @SuppressWarnings("unchecked") // the call overloads admit only values of this type here
        public A first() {
            return (A) arguments.value(0);
        }

        @Override
        public String toString() {
            return arguments.toString();
        }
    }

    private final Definition definition;

    Mo1(Body<A, R> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, false, (args, pipe) -> apply(body, args));
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types
    private static <A, R> R apply(Body<A, R> body, Object[] args) throws Exception {
        return body.apply((A) args[0]);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     */
    public Task<R> call(A a) {
        return definition.call(a);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a) {
        return definition.call(Definition.taskArg(a, 1));
    }

    /**
     * The arguments of a task made by this moroutine, typed. Use {@link Moroutine#isTask}
     * first when the task may come from another moroutine.
     *
     * @param task a task made by {@link #call} of this moroutine
     * @return its arguments
     * @throws IllegalArgumentException if the task was not made by this moroutine
     * @throws NullPointerException if {@code task} is null
     */
    public Args<A> args(Task<?> task) {
        return new Args<>(definition.arguments(task));
    }

    @Override
    public String id() {
        return definition.id();
    }

    @Override
    public int arity() {
        return 1;
    }

    @Override
    public String toString() {
        return definition.toString();
    }
}
