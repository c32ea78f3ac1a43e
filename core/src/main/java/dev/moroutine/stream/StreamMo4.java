package dev.moroutine.stream;

import dev.moroutine.Mo;
import dev.moroutine.Moroutine;
import dev.moroutine.Task;
import dev.moroutine.internal.Definition;
import java.util.stream.Stream;

/**
 * A streaming moroutine of 4 arguments: {@link #call} describes one call as a {@link StreamTask},
 * whose run produces items on a worker and delivers them, with backpressure, to a {@link LiveStream}.
 * Made by {@link Streaming#streaming} (the function returns a {@link Stream}, pulled lazily on the
 * worker) or {@link Streaming#emitting} (the function pushes into an {@link Emitter}).
 *
 * <p>Every argument may also be given as a {@link Task} of the parameter's type: a value task-arg is
 * resolved on the worker and cached there, while a {@link StreamTask} or a {@link Channel} given for a
 * {@code Stream<X>} or {@code Iterable<X>} parameter is piped in, item by item, with backpressure.
 *
 * <p>Instances are immutable and thread-safe.
 *
 * @param <A> the type of the first argument
 * @param <B> the type of the second argument
 * @param <C> the type of the third argument
 * @param <D> the type of the fourth argument
 * @param <T> the item type
 */
public final class StreamMo4<A, B, C, D, T> implements Mo {

    /**
     * The function of a pull-style streaming moroutine: it returns the stream of items, which the
     * worker pulls as the consumer makes room, and closes at the end.
     *
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <D> the type of the fourth argument
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Body<A, B, C, D, T> {
        /**
         * Makes the stream, on the worker.
         *
         * @param a the first argument
         * @param b the second argument
         * @param c the third argument
         * @param d the fourth argument
         * @return the items, which must not be null
         * @throws Exception to fail the stream
         */
        Stream<? extends T> apply(A a, B b, C c, D d) throws Exception;
    }

    /**
     * The function of a push-style streaming moroutine: it emits the items itself, blocking in
     * {@link Emitter#emit} under backpressure; the stream ends when it returns.
     *
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <D> the type of the fourth argument
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Emitting<A, B, C, D, T> {
        /**
         * Emits the items, on the worker.
         *
         * @param a the first argument
         * @param b the second argument
         * @param c the third argument
         * @param d the fourth argument
         * @param out where the items go
         * @throws Exception to fail the stream, after the items emitted so far
         */
        void apply(A a, B b, C c, D d, Emitter<T> out) throws Exception;
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

    StreamMo4(Body<A, B, C, D, T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            pipe.pump(pull(body, args));
            pipe.finish();
            return null;
        });
    }

    StreamMo4(Emitting<A, B, C, D, T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            push(body, args, pipe);
            pipe.finish();
            return null;
        });
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types
    private static <A, B, C, D, T> Stream<? extends T> pull(Body<A, B, C, D, T> body, Object[] args) throws Exception {
        return body.apply((A) args[0], (B) args[1], (C) args[2], (D) args[3]);
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types; the pipe carries T
    private static <A, B, C, D, T> void push(Emitting<A, B, C, D, T> body, Object[] args, Emitter<?> out) throws Exception {
        body.apply((A) args[0], (B) args[1], (C) args[2], (D) args[3], (Emitter<T>) out);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     */
    public StreamTask<T> call(A a, B b, C c, D d) {
        return definition.streamCall(a, b, c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, B b, C c, Task<? extends D> d) {
        return definition.streamCall(a, b, c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, B b, Task<? extends C> c, D d) {
        return definition.streamCall(a, b, Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, B b, Task<? extends C> c, Task<? extends D> d) {
        return definition.streamCall(a, b, Definition.taskArg(c, 3), Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, Task<? extends B> b, C c, D d) {
        return definition.streamCall(a, Definition.taskArg(b, 2), c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, Task<? extends B> b, C c, Task<? extends D> d) {
        return definition.streamCall(a, Definition.taskArg(b, 2), c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, Task<? extends B> b, Task<? extends C> c, D d) {
        return definition.streamCall(a, Definition.taskArg(b, 2), Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, Task<? extends B> b, Task<? extends C> c, Task<? extends D> d) {
        return definition.streamCall(a, Definition.taskArg(b, 2), Definition.taskArg(c, 3), Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, B b, C c, D d) {
        return definition.streamCall(Definition.taskArg(a, 1), b, c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument
     * @param c the third argument
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, B b, C c, Task<? extends D> d) {
        return definition.streamCall(Definition.taskArg(a, 1), b, c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, B b, Task<? extends C> c, D d) {
        return definition.streamCall(Definition.taskArg(a, 1), b, Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, B b, Task<? extends C> c, Task<? extends D> d) {
        return definition.streamCall(Definition.taskArg(a, 1), b, Definition.taskArg(c, 3), Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, Task<? extends B> b, C c, D d) {
        return definition.streamCall(Definition.taskArg(a, 1), Definition.taskArg(b, 2), c, d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, Task<? extends B> b, C c, Task<? extends D> d) {
        return definition.streamCall(Definition.taskArg(a, 1), Definition.taskArg(b, 2), c, Definition.taskArg(d, 4));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, Task<? extends B> b, Task<? extends C> c, D d) {
        return definition.streamCall(Definition.taskArg(a, 1), Definition.taskArg(b, 2), Definition.taskArg(c, 3), d);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @param c the third argument, as a task-arg (a stream task or channel is piped in)
     * @param d the fourth argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, Task<? extends B> b, Task<? extends C> c, Task<? extends D> d) {
        return definition.streamCall(Definition.taskArg(a, 1), Definition.taskArg(b, 2), Definition.taskArg(c, 3), Definition.taskArg(d, 4));
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
