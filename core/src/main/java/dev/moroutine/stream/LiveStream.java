package dev.moroutine.stream;

import java.util.Iterator;
import java.util.Spliterator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The consumer's end of a running stream: its items arrive from a producer on a worker, in order,
 * with backpressure. It is both a {@link Stream} and an {@link Iterable}, so it can be used with
 * the stream API, in a for-each loop, or passed where a moroutine expects either.
 *
 * <pre>{@code
 * try (LiveStream<Integer> numbers = countUp.call(1_000_000).join()) {
 *     for (int n : numbers) {
 *         if (n == 10) break;   // leaving the try closes the stream: the producer stops
 *     }
 * }
 * }</pre>
 *
 * <p>It may be consumed once, by one thread at a time: a second {@code iterator()}, or a stream
 * operation after the first, throws {@link IllegalStateException}. Taking an item blocks (spinning
 * briefly on a platform thread, then parking) until the producer emits one; a producer's failure
 * is thrown, after every item it emitted before it, as a {@link dev.moroutine.TaskFailedException}
 * (or a {@link java.util.concurrent.CancellationException} if its worker was stopped). If the
 * waiting thread is interrupted, the stream is closed and a {@code CancellationException} is
 * thrown with the interrupt status kept, so a stopping worker never stays blocked on a stream.
 *
 * <p>{@link #close()} stops the producer promptly if it has not finished. A terminal operation
 * closes it when it returns or throws, so a short-circuiting one stops the producer at once:
 * one called on this stream itself ({@code toList()}, {@code findFirst()}, {@code forEach}…), and
 * one anywhere on a stream derived from it by its methods, of any shape
 * ({@code limit(5).toList()}, {@code mapToInt(…).sum()}, {@code flatMap(…)}, {@code gather(…)}).
 * {@code iterator()} and {@code spliterator()} (here or on a derived stream) hand the items over
 * without ending anything: after one, or a for-each loop, close this stream yourself
 * (try-with-resources). So does a stream that combines it with others through a static method
 * ({@code Stream.concat}): close the combined stream. A stream that is dropped without being
 * closed or finished is closed when it is garbage collected, which may be much later.
 *
 * @param <T> the item type
 */
public sealed interface LiveStream<T> extends Stream<T>, Iterable<T> permits dev.moroutine.internal.stream.LiveStreamImpl {

    /**
     * Iterates over the items; the for-each form of consuming this stream.
     *
     * @return the iterator
     * @throws IllegalStateException if this stream is already being consumed
     */
    @Override
    Iterator<T> iterator();

    /**
     * The items as a spliterator (ordered, non-null, sequential).
     *
     * @return the spliterator
     * @throws IllegalStateException if this stream is already being consumed
     */
    @Override
    Spliterator<T> spliterator();

    /**
     * Runs {@code action} on each item, in order, on this thread.
     *
     * @param action what to do with each item
     * @throws IllegalStateException if this stream is already being consumed
     */
    @Override
    void forEach(Consumer<? super T> action);

    /** Stops the producer if it has not finished, and drops items not yet taken. Idempotent. */
    @Override
    void close();
}
