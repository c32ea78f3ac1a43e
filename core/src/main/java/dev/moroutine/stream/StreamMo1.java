package dev.moroutine.stream;

import dev.moroutine.Mo;
import dev.moroutine.Moroutine;
import dev.moroutine.Task;
import dev.moroutine.internal.Definition;
import java.util.stream.Stream;

/**
 * A streaming moroutine of 1 argument: {@link #call} describes one call as a {@link StreamTask},
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
 * @param <T> the item type
 */
public final class StreamMo1<A, T> implements Mo {

    /**
     * The function of a pull-style streaming moroutine: it returns the stream of items, which the
     * worker pulls as the consumer makes room, and closes at the end.
     *
     * @param <A> the type of the first argument
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Body<A, T> {
        /**
         * Makes the stream, on the worker.
         *
         * @param a the first argument
         * @return the items, which must not be null
         * @throws Exception to fail the stream
         */
        Stream<? extends T> apply(A a) throws Exception;
    }

    /**
     * The function of a push-style streaming moroutine: it emits the items itself, blocking in
     * {@link Emitter#emit} under backpressure; the stream ends when it returns.
     *
     * @param <A> the type of the first argument
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Emitting<A, T> {
        /**
         * Emits the items, on the worker.
         *
         * @param a the first argument
         * @param out where the items go
         * @throws Exception to fail the stream, after the items emitted so far
         */
        void apply(A a, Emitter<T> out) throws Exception;
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

    StreamMo1(Body<A, T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            pipe.pump(pull(body, args));
            pipe.finish();
            return null;
        });
    }

    StreamMo1(Emitting<A, T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            push(body, args, pipe);
            pipe.finish();
            return null;
        });
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types
    private static <A, T> Stream<? extends T> pull(Body<A, T> body, Object[] args) throws Exception {
        return body.apply((A) args[0]);
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types; the pipe carries T
    private static <A, T> void push(Emitting<A, T> body, Object[] args, Emitter<?> out) throws Exception {
        body.apply((A) args[0], (Emitter<T>) out);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     */
    public StreamTask<T> call(A a) {
        return definition.streamCall(a);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @param a the first argument, as a task-arg (a stream task or channel is piped in)
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     * @throws NullPointerException if a task-arg is {@code null}
     */
    public StreamTask<T> call(Task<? extends A> a) {
        return definition.streamCall(Definition.taskArg(a, 1));
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
