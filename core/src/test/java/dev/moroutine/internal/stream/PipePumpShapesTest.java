package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.TaskFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Pipe#pump} pushing a stream's items (forEachRemaining) rather than pulling them
 * one tryAdvance each: parallel streams, short-circuits, infinite flatMaps and sources cancelled by
 * the consumer's close, failing sources, onClose handlers.
 */
@Timeout(60)
class PipePumpShapesTest {

    private static final long WAIT_SECONDS = 20;

    /** Pumps {@code items} on a thread of its own; the future has the pump's outcome (null, or what it threw). */
    private static CompletableFuture<Throwable> pumpAsync(Pipe<Integer> pipe, Supplier<Stream<Integer>> items) {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                pipe.pump(items.get());
                pipe.finish();
                outcome.complete(null);
            } catch (Throwable e) {
                pipe.fail(e);
                outcome.complete(e);
            }
        });
        return outcome;
    }

    private static List<Integer> drain(Pipe<Integer> pipe) {
        List<Integer> got = new ArrayList<>();
        for (Object item; (item = pipe.next()) != ItemSource.END; ) {
            got.add((Integer) item);
        }
        return got;
    }

    /** A parallel stream (stateless, and with a parallel sort before it): emitted on the producer's thread only, in order. */
    @Test
    void aParallelStreamIsEmittedOnTheProducersThreadInOrder() throws Exception {
        int count = 50_000;
        for (boolean sorted : new boolean[] {false, true}) {
            Pipe<Integer> pipe = new Pipe<>(16, "parallel pipe");
            CompletableFuture<Throwable> pumped = pumpAsync(pipe, () -> {
                Stream<Integer> items = IntStream.range(0, count).parallel().boxed().map(x -> count - 1 - x);
                return sorted ? items.sorted() : items.map(x -> count - 1 - x);
            });
            List<Integer> got = drain(pipe);
            assertEquals(null, pumped.get(WAIT_SECONDS, TimeUnit.SECONDS), "a parallel stage emitted from another thread");
            assertEquals(count, got.size());
            for (int i = 0; i < count; i++) {
                assertEquals(i, got.get(i));
            }
        }
    }

    /** An infinite flatMap: the consumer's close stops the pump (a pulled flatMap buffered an infinite inner stream); both onClose run. */
    @Test
    void anInfiniteFlatMapStopsAtTheConsumersClose() throws Exception {
        Pipe<Integer> pipe = new Pipe<>(8, "flatMap pipe");
        CountDownLatch innerClosed = new CountDownLatch(1);
        CountDownLatch outerClosed = new CountDownLatch(1);
        CompletableFuture<Throwable> pumped = pumpAsync(pipe, () -> Stream.of(0)
                .flatMap(x -> Stream.iterate(0, i -> i + 1).onClose(innerClosed::countDown))
                .onClose(outerClosed::countDown));
        for (int i = 0; i < 100; i++) {
            assertEquals(i, pipe.next());
        }
        pipe.cancel();
        assertInstanceOf(CancellationException.class, pumped.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(innerClosed.await(WAIT_SECONDS, TimeUnit.SECONDS), "the inner stream was not closed");
        assertTrue(outerClosed.await(WAIT_SECONDS, TimeUnit.SECONDS), "the stream was not closed");
    }

    /** limit() over an infinite generator pulls exactly the items it passes on; flatMap then limit too. */
    @Test
    void aLimitShortCircuitsTheSource() throws Exception {
        AtomicInteger pulled = new AtomicInteger();
        Pipe<Integer> pipe = new Pipe<>(2, "limited pipe");
        CompletableFuture<Throwable> pumped = pumpAsync(pipe, () -> Stream.generate(pulled::getAndIncrement).limit(5));
        assertEquals(List.of(0, 1, 2, 3, 4), drain(pipe));
        assertEquals(null, pumped.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(5, pulled.get());

        Pipe<Integer> flat = new Pipe<>(2, "flat limited pipe");
        CompletableFuture<Throwable> flatPumped = pumpAsync(flat, () -> Stream.of(0, 100)
                .flatMap(x -> Stream.iterate(x, i -> i + 1)).limit(3));
        assertEquals(List.of(0, 1, 2), drain(flat));
        assertEquals(null, flatPumped.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    /** A source that throws: the items before it are delivered, then its failure; the onClose handler runs. */
    @Test
    void aThrowingSourceDeliversTheItemsBeforeItsFailure() throws Exception {
        IllegalStateException broke = new IllegalStateException("broke at 3");
        CountDownLatch closed = new CountDownLatch(1);
        Pipe<Integer> pipe = new Pipe<>(4, "throwing pipe");
        CompletableFuture<Throwable> pumped = pumpAsync(pipe, () -> Stream.iterate(0, i -> {
            if (i == 2) {
                throw broke;
            }
            return i + 1;
        }).onClose(closed::countDown));
        List<Integer> got = new ArrayList<>();
        TaskFailedException failed = assertThrows(TaskFailedException.class, () -> {
            for (Object item; (item = pipe.next()) != ItemSource.END; ) {
                got.add((Integer) item);
            }
        });
        assertEquals(broke, failed.getCause());
        assertEquals(List.of(0, 1, 2), got);
        assertEquals(broke, pumped.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(closed.await(WAIT_SECONDS, TimeUnit.SECONDS));
    }
}
