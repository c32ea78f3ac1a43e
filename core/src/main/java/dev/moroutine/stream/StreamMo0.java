package dev.moroutine.stream;

import dev.moroutine.Mo;
import dev.moroutine.Moroutine;
import dev.moroutine.Task;
import dev.moroutine.internal.Definition;
import java.util.stream.Stream;

/**
 * A streaming moroutine of 0 arguments: {@link #call} describes one call as a {@link StreamTask},
 * whose run produces items on a worker and delivers them, with backpressure, to a {@link LiveStream}.
 * Made by {@link Streaming#streaming} (the function returns a {@link Stream}, pulled lazily on the
 * worker) or {@link Streaming#emitting} (the function pushes into an {@link Emitter}).
 *
 * <p>Instances are immutable and thread-safe.
 *
 * @param <T> the item type
 */
public final class StreamMo0<T> implements Mo {

    /**
     * The function of a pull-style streaming moroutine: it returns the stream of items, which the
     * worker pulls as the consumer makes room, and closes at the end.
     *
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Body<T> {
        /**
         * Makes the stream, on the worker.
         *
         * @return the items, which must not be null
         * @throws Exception to fail the stream
         */
        Stream<? extends T> apply() throws Exception;
    }

    /**
     * The function of a push-style streaming moroutine: it emits the items itself, blocking in
     * {@link Emitter#emit} under backpressure; the stream ends when it returns.
     *
     * @param <T> the item type
     */
    @FunctionalInterface
    public interface Emitting<T> {
        /**
         * Emits the items, on the worker.
         *
         * @param out where the items go
         * @throws Exception to fail the stream, after the items emitted so far
         */
        void apply(Emitter<T> out) throws Exception;
    }

    private final Definition definition;

    StreamMo0(Body<T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            pipe.pump(pull(body, args));
            pipe.finish();
            return null;
        });
    }

    StreamMo0(Emitting<T> body, StackWalker.StackFrame site) {
        definition = new Definition(this, site, true, (args, pipe) -> {
            push(body, args, pipe);
            pipe.finish();
            return null;
        });
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types
    private static <T> Stream<? extends T> pull(Body<T> body, Object[] args) throws Exception {
        return body.apply();
    }

    @SuppressWarnings("unchecked") // the call overloads admit only values of these types; the pipe carries T
    private static <T> void push(Emitting<T> body, Object[] args, Emitter<?> out) throws Exception {
        body.apply((Emitter<T>) out);
    }

    /**
     * Describes one call of this moroutine with these arguments; nothing runs until the task is
     * joined or run.
     *
     * @return the task
     * @throws IllegalStateException if this moroutine is not stored in a {@code static final} field
     */
    public StreamTask<T> call() {
        return definition.streamCall(Definition.NO_ARGS);
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
