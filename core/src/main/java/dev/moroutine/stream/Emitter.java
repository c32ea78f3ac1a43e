package dev.moroutine.stream;

/**
 * Where a push-style streaming moroutine ({@link Streaming#emitting}) sends its items. Used only by
 * the moroutine's own worker thread, for the duration of the call.
 *
 * @param <T> the item type
 */
public sealed interface Emitter<T> permits dev.moroutine.internal.stream.Pipe {

    /**
     * Sends one item. Blocks (spinning briefly, then parking) while {@code highWaterMark} items are
     * in flight, until the consumer takes one. A producer in this JVM that had to park goes on once
     * the consumer has taken half of them, or after a short timer (50 µs, plus the OS's timer slack)
     * from its first take, so that the items of a busy stream change hands in runs rather than one
     * park per item. (In a worker JVM or on a cluster member it waits for the caller's credit.)
     *
     * @param item the item
     * @throws NullPointerException if {@code item} is null: streams carry non-null items only
     * @throws java.util.concurrent.CancellationException if the consumer closed the stream, or the
     *     worker was stopped; let it propagate, so the worker moves on to its next task
     */
    void emit(T item);

    /**
     * Whether the consumer has closed the stream: a producer with expensive items may check this
     * between them. {@link #emit} would throw.
     *
     * @return {@code true} once the consumer has closed
     */
    boolean cancelled();
}
