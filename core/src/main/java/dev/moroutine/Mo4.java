package dev.moroutine;

import dev.moroutine.internal.Definition;

/**
 * A moroutine of 4 arguments: {@link #call} describes one call as a {@link Task}, which runs on
 * this moroutine's dedicated worker ({@link Task#join()}) or on a pool ({@link Runner#run}).
 *
 * <p>Every argument may also be given as a {@link Task} of the parameter's type (a <em>task-arg</em>):
 * it runs on the worker that runs this call, once per worker, and its value is cached there.
 * There is one {@code call} overload for each choice of value or task per position.
 *
 * <p>Instances are immutable and thread-safe.
 *
 * @param <A> the type of the first argument
 * @param <B> the type of the second argument
 * @param <C> the type of the third argument
 * @param <D> the type of the fourth argument
 * @param <R> the result type
 */
public final class Mo4<A, B, C, D, R> implements Mo {

    /**
     * The function a {@code Mo4} runs. It may throw any exception; the exception fails the call.
     *
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <D> the type of the fourth argument
     * @param <R> the result type
     */
    @FunctionalInterface
    public interface Body<A, B, C, D, R> {
        /**
         * Runs the function on a worker.
         *
         * @param a the first argument
         * @param b the second argument
         * @param c the third argument
         * @param d the fourth argument
         * @return the result, which may be {@code null}
         * @throws Exception to fail the call
         */
        R apply(A a, B b, C c, D d) throws Exception;
    }

    /**
     * The arguments of one call of this moroutine, read with {@link #args(Task)}. Immutable.
     *
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <D> the type of the fourth argument
     */
    public static final class Args<A, B, C, D> {
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

        /**
         * The second argument.
         *
         * @return its value
         * @throws IllegalArgumentException if it was given as a task-arg, whose value exists only on a worker
         */
        @SuppressWarnings("unchecked") // the call overloads admit only values of this type here
        public B second() {
            return (B) arguments.value(1);
        }

        /**
         * The third argument.
         *
         * @return its value
         * @throws IllegalArgumentException if it was given as a task-arg, whose value exists only on a worker
         */
        @SuppressWarnings("unchecked") // the call overloads admit only values of this type here
        public C third() {
            return (C) arguments.value(2);
        }

        /**
         * The fourth argument.
         *
         * @return its value
         * @throws IllegalArgumentException if it was given as a task-arg, whose value exists only on a worker
         */
        @SuppressWarnings("unchecked") // the call overloads admit only values of this type here
        public D fourth() {
            return (D) arguments.value(3);
        }

        @Override
        public String toString() {
            return arguments.toString();
        }
    }

    private final Definition definition;

    Mo4(Body<A, B, C, D, R> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, false, (args, pipe) -> apply(body, args));
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types
    private static <A, B, C, D, R> R apply(Body<A, B, C, D, R> body, Object[] args) throws Exception {
        return body.apply((A) args[0], (B) args[1], (C) args[2], (D) args[3]);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     */
    public Task<R> call(A a, B b, C c, D d) {
        return definition.call(a, b, c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(A a, B b, C c, Task<? extends D> d) {
        return definition.call(a, b, c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(A a, B b, Task<? extends C> c, D d) {
        return definition.call(a, b, Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(A a, B b, Task<? extends C> c, Task<? extends D> d) {
        return definition.call(a, b, Definition.taskArg(c, 3), Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(A a, Task<? extends B> b, C c, D d) {
        return definition.call(a, Definition.taskArg(b, 2), c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(A a, Task<? extends B> b, C c, Task<? extends D> d) {
        return definition.call(a, Definition.taskArg(b, 2), c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(A a, Task<? extends B> b, Task<? extends C> c, D d) {
        return definition.call(a, Definition.taskArg(b, 2), Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(A a, Task<? extends B> b, Task<? extends C> c, Task<? extends D> d) {
        return definition.call(a, Definition.taskArg(b, 2), Definition.taskArg(c, 3), Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, B b, C c, D d) {
        return definition.call(Definition.taskArg(a, 1), b, c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, B b, C c, Task<? extends D> d) {
        return definition.call(Definition.taskArg(a, 1), b, c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, B b, Task<? extends C> c, D d) {
        return definition.call(Definition.taskArg(a, 1), b, Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, B b, Task<? extends C> c, Task<? extends D> d) {
        return definition.call(Definition.taskArg(a, 1), b, Definition.taskArg(c, 3), Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, Task<? extends B> b, C c, D d) {
        return definition.call(Definition.taskArg(a, 1), Definition.taskArg(b, 2), c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, Task<? extends B> b, C c, Task<? extends D> d) {
        return definition.call(Definition.taskArg(a, 1), Definition.taskArg(b, 2), c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, Task<? extends B> b, Task<? extends C> c, D d) {
        return definition.call(Definition.taskArg(a, 1), Definition.taskArg(b, 2), Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined, submitted or run.
     *
     * @param a the first argument, as a task-arg resolved on the worker
     * @param b the second argument, as a task-arg resolved on the worker
     * @param c the third argument, as a task-arg resolved on the worker
     * @param d the fourth argument, as a task-arg resolved on the worker
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public Task<R> call(Task<? extends A> a, Task<? extends B> b, Task<? extends C> c, Task<? extends D> d) {
        return definition.call(Definition.taskArg(a, 1), Definition.taskArg(b, 2), Definition.taskArg(c, 3), Definition.taskArg(d, 4));
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
    public Args<A, B, C, D> args(Task<?> task) {
        return new Args<>(definition.arguments(task));
    }

    @Override
    public String id() {
        return definition.id();
    }

    @Override
    public int arity() {
        return 4;
    }

    @Override
    public String toString() {
        return definition.toString();
    }
}
