package dev.moroutine.stream;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Gatherers;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A terminal operation anywhere on a pipeline derived from a live stream ends the live stream, as
 * one on the live stream itself does: {@code limit(5).toList()} used to return its items and leave
 * the endless producer holding its worker (until a GC), so the next task there waited, and so did
 * the pool's {@code close()}.
 */
@Timeout(120)
class DerivedStreamClosingTest {

    static final StreamMo0<Long> naturals = streaming(() -> LongStream.iterate(0, i -> i + 1).boxed());
    static final Mo1<Integer, Integer> echo = mo(x -> x);
    static final StreamMo1<Integer, Long> countTo = streaming(n -> LongStream.range(0, n).boxed());

    static Stream<Arguments> derivations() {
        return Stream.of(
                derivation("limit(5).toList()", s -> s.limit(5).toList(), List.of(0L, 1L, 2L, 3L, 4L)),
                derivation("filter.map.findFirst()", s -> s.filter(x -> x > 2).map(x -> x * 10).findFirst().orElseThrow(), 30L),
                derivation("mapToInt.limit.sum()", s -> s.mapToInt(Long::intValue).limit(5).sum(), 10),
                derivation("mapToDouble.limit.average()", s -> s.mapToDouble(x -> x).limit(4).average(), OptionalDouble.of(1.5)),
                derivation("mapToLong.takeWhile.boxed.reduce", s -> s.mapToLong(x -> x).takeWhile(x -> x < 4).boxed()
                        .reduce(0L, Long::sum), 6L),
                derivation("flatMap.limit.toList()", s -> s.flatMap(x -> Stream.of(x, x)).limit(4).toList(), List.of(0L, 0L, 1L, 1L)),
                derivation("gather.limit.toList()", s -> s.gather(Gatherers.windowFixed(2)).limit(2).toList(),
                        List.of(List.of(0L, 1L), List.of(2L, 3L))),
                derivation("sequential.skip.anyMatch", s -> s.sequential().skip(2).anyMatch(x -> x == 5), true),
                derivation("onClose.limit.count()", s -> s.onClose(() -> {}).limit(3).count(), 3L),
                derivation("mapToInt.asLongStream.mapToObj.limit.toList()", s -> s.mapToInt(Long::intValue).asLongStream()
                        .mapToObj(Long::toString).limit(2).toList(), List.of("0", "1")));
    }

    private static Arguments derivation(String name, Function<LiveStream<Long>, Object> terminal, Object expected) {
        return Arguments.of(name, terminal, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("derivations")
    void aTerminalOperationOnADerivedStreamFreesTheProducersWorker(String name, Function<LiveStream<Long>, Object> terminal,
            Object expected) throws Exception {
        Pool pool = workers(1);
        try {
            LiveStream<Long> live = pool.run(naturals.call());
            assertEquals(expected, terminal.apply(live));
            assertFreed(pool);
            Reference.reachabilityFence(live); // not freed by the Cleaner instead
        } finally {
            pool.terminate(); // after a failure, frees the worker that the producer holds
        }
    }

    private static void assertFreed(Pool pool) throws Exception {
        assertEquals(7, pool.submit(echo.call(7)).get(10, TimeUnit.SECONDS), "the next task on the producer's worker runs");
        assertTimeoutPreemptively(Duration.ofSeconds(10), pool::close, "close() returns");
    }

    @Test
    void aTerminalOperationThatThrowsEndsTheLiveStreamToo() throws Exception {
        Pool pool = workers(1);
        try {
            LiveStream<Long> live = pool.run(naturals.call());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> live.map(x -> {
                if (x == 3) throw new IllegalStateException("boom at " + x);
                return x;
            }).toList());
            assertEquals("boom at 3", e.getMessage());
            assertFreed(pool);
            Reference.reachabilityFence(live);
        } finally {
            pool.terminate();
        }
    }

    /** A stream that a terminal operation returns used to come back wrapped as a plain Stream: a LiveStream result failed its cast. */
    @Test
    void aStreamThatATerminalOperationReturnsIsReturnedAsItIs() throws Exception {
        Pool pool = workers(1);
        try {
            LiveStream<Integer> inner = channel(List.of(1, 2)).join();
            LiveStream<Long> live = pool.run(naturals.call());
            Object got = live.limit(1).map(x -> inner).reduce(inner, (a, b) -> b);
            assertSame(inner, got);
            assertEquals(List.of(1, 2), inner.toList());
            assertFreed(pool);
            Reference.reachabilityFence(live);
        } finally {
            pool.terminate();
        }
    }

    /**
     * A terminal operation on a derived stream that was already operated upon is refused by the JDK;
     * it used to close the pipeline too, so the consumer of that stream's iterator ended early, silently.
     */
    @Test
    void aRefusedTerminalOperationOnADerivedStreamLeavesItsConsumerItsItems() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (LiveStream<Long> live = countTo.call(1_000).join()) {
                Stream<Long> derived = live.map(x -> x);
                Iterator<Long> first = derived.iterator();
                assertEquals(0L, first.next());
                assertThrows(IllegalStateException.class, derived::toList);
                assertThrows(IllegalStateException.class, () -> derived.mapToLong(x -> x).sum());
                long expected = 1;
                while (first.hasNext()) {
                    assertEquals(expected++, first.next());
                }
                assertEquals(1_000, expected, "the iterator's consumer got every item");
            }
        });
    }

    /** An iterator is not a terminal operation that ends: the caller still closes the stream. */
    @Test
    void aDerivedIteratorLeavesTheStreamOpenUntilItIsClosed() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (Pool pool = workers(1); LiveStream<Long> live = pool.run(naturals.call())) {
                Iterator<Long> evens = live.filter(x -> x % 2 == 0).iterator();
                assertEquals(List.of(0L, 2L, 4L), List.of(evens.next(), evens.next(), evens.next()));
            }
        });
    }
}
