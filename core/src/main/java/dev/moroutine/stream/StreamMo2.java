package dev.moroutine.stream;

import dev.moroutine.Mo;
import dev.moroutine.Moroutine;
import dev.moroutine.Task;
import dev.moroutine.internal.Definition;
import java.util.stream.Stream;

/**
 * A streaming moroutine of 2 arguments: {@link #call} describes one call as a {@link StreamTask},
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
 * @param <T> the item type
 */
public final class StreamMo2<A, B, T> implements Mo {

    /**
     * The function of a pull-style streaming moroutine: it returns the stream of items, which the
     * worker pulls as the consumer makes room, and closes at the end.
     *
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Body<A, B, T> {
        /**
         * Makes the stream, on the worker.
         *
         * @param a the first argument
         * @param b the second argument
         * @return the items, which must not be null
         * @throws Exception to fail the stream
         */
        Stream<? extends T> apply(A a, B b) throws Exception;
    }

    /**
     * The function of a push-style streaming moroutine: it emits the items itself, blocking in
     * {@link Emitter#emit} under backpressure; the stream ends when it returns.
     *
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Emitting<A, B, T> {
        /**
         * Emits the items, on the worker.
         *
         * @param a the first argument
         * @param b the second argument
         * @param out where the items go
         * @throws Exception to fail the stream, after the items emitted so far
         */
        void apply(A a, B b, Emitter<T> out) throws Exception;
    }

    /**
     * The arguments of one call of this moroutine, read with {@link #args(Task)}. Immutable.
     *
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     */
    public static final class Args<A, B> {
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

        @Override
        public String toString() {
            return arguments.toString();
        }
    }

    private final Definition definition;

    StreamMo2(Body<A, B, T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            pipe.pump(pull(body, args));
            pipe.finish();
            return null;
        });
    }

    StreamMo2(Emitting<A, B, T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            push(body, args, pipe);
            pipe.finish();
            return null;
        });
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types
    private static <A, B, T> Stream<? extends T> pull(Body<A, B, T> body, Object[] args) throws Exception {
        return body.apply((A) args[0], (B) args[1]);
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types; the pipe carries T
    private static <A, B, T> void push(Emitting<A, B, T> body, Object[] args, Emitter<?> out) throws Exception {
        body.apply((A) args[0], (B) args[1], (Emitter<T>) out);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     */
    public StreamTask<T> call(A a, B b) {
        return definition.streamCall(a, b);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(A a, Task<? extends B> b) {
        return definition.streamCall(a, Definition.taskArg(b, 2));
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, B b) {
        return definition.streamCall(Definition.taskArg(a, 1), b);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @param b the second argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a, Task<? extends B> b) {
        return definition.streamCall(Definition.taskArg(a, 1), Definition.taskArg(b, 2));
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
    public Args<A, B> args(Task<?> task) {
        return new Args<>(definition.arguments(task));
    }

    @Override
    public String id() {
        return definition.id();
    }

    @Override
    public int arity() {
        return 2;
    }

    @Override
    public String toString() {
        return definition.toString();
    }
}
