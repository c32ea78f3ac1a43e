package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A producer that parked for room waits, after the first take, for the low tide (half the
 * high-water mark in flight) or its timer, and a producer at a consumer that takes nothing waits
 * without a timer (see {@link Pipe}'s class comment, "Waiting").
 */
@Timeout(120)
class PipeLowTideTest {

    private static final long NO_TIMER = TimeUnit.HOURS.toNanos(1);

    /** Waits, up to a deadline, until the thread is in {@code state} and {@code ready} holds. */
    private static void awaitState(Thread thread, Thread.State state, AtomicInteger emitted, int count, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != state || emitted.get() != count) {
            assertTrue(System.nanoTime() < deadline, what + " (state " + thread.getState() + ", emitted " + emitted.get() + ")");
            Thread.yield();
        }
    }

    private static Thread producer(Pipe<Integer> pipe, int items, AtomicInteger emitted) {
        return producer(pipe, items, emitted, new AtomicReference<>());
    }

    /** A producer of {@code items}; what stopped it (a cancel at the end of a test, say) goes to {@code stopped}. */
    private static Thread producer(Pipe<Integer> pipe, int items, AtomicInteger emitted, AtomicReference<RuntimeException> stopped) {
        return Thread.ofPlatform().daemon().start(() -> {
            try {
                for (int i = 0; i < items; i++) {
                    pipe.emit(i);
                    emitted.incrementAndGet();
                }
            } catch (RuntimeException e) {
                stopped.set(e);
            }
        });
    }

    @Test
    void aProducerWokenByTheFirstTakeWaitsForTheLowTide() throws Exception {
        Pipe<Integer> pipe = new Pipe<>(8, new Pipe.ProducerWait(), "low-tide pipe", false, NO_TIMER);
        AtomicInteger emitted = new AtomicInteger();
        Thread producer = producer(pipe, 9, emitted);
        awaitState(producer, Thread.State.WAITING, emitted, 8, "the producer parks at the mark, without a timer");

        assertEquals(0, pipe.next());
        awaitState(producer, Thread.State.TIMED_WAITING, emitted, 8, "woken by the take, it waits again for the low tide");
        assertEquals(1, pipe.next());
        assertEquals(2, pipe.next());
        assertEquals(8, emitted.get(), "5 in flight: above the low tide of 4");
        assertEquals(3, pipe.next()); // 4 in flight: the low tide
        producer.join(TimeUnit.SECONDS.toMillis(10));
        assertEquals(9, emitted.get(), "the take that reached the low tide woke the producer");
        for (int i = 4; i < 9; i++) {
            assertEquals(i, pipe.next());
        }
        pipe.cancel();
    }

    /** A close, a stop or an interrupt ends a wait for the low tide at once (the wait has no timer here). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"close", "stop", "interrupt"})
    void anEndOrAnInterruptReleasesAProducerWaitingForTheLowTide(String end) throws Exception {
        for (int round = 0; round < 20; round++) {
            Pipe<Integer> pipe = new Pipe<>(8, new Pipe.ProducerWait(), "low-tide pipe", false, NO_TIMER);
            AtomicInteger emitted = new AtomicInteger();
            AtomicReference<RuntimeException> stopped = new AtomicReference<>();
            Thread producer = producer(pipe, 9, emitted, stopped);
            awaitState(producer, Thread.State.WAITING, emitted, 8, "the producer parks at the mark");
            assertEquals(0, pipe.next());
            awaitState(producer, Thread.State.TIMED_WAITING, emitted, 8, "woken by the take, it waits for the low tide");
            switch (end) {
                case "close" -> pipe.cancel();
                case "stop" -> pipe.fail(new CancellationException("stopped"));
                default -> producer.interrupt();
            }
            producer.join(TimeUnit.SECONDS.toMillis(10));
            assertEquals(Thread.State.TERMINATED, producer.getState(), "round " + round + ": the " + end + " released the producer");
            assertEquals(8, emitted.get());
            assertTrue(stopped.get() instanceof CancellationException, "round " + round + ": " + stopped.get());
            String expected = switch (end) {
                case "close" -> "the consumer of low-tide pipe closed it";
                case "stop" -> "low-tide pipe has ended";
                default -> "low-tide pipe was stopped: its producer was interrupted";
            };
            assertTrue(stopped.get().getMessage().startsWith(expected), stopped.get().getMessage());
            pipe.cancel();
        }
    }

    /** A consumer that takes one item and then waits for the producer's next step (the review of 9b49c69) is not held up. */
    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {3, 4, 16, 64, 1024})
    void aConsumerThatTakesOneAndStopsStillLetsTheProducerOn(int highWaterMark) throws Exception {
        for (int round = 0; round < 50; round++) {
            Pipe<Integer> pipe = new Pipe<>(highWaterMark, "one-take pipe");
            CountDownLatch pastTheMark = new CountDownLatch(1);
            AtomicInteger emitted = new AtomicInteger();
            Thread producer = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; i <= highWaterMark; i++) {
                    pipe.emit(i);
                    emitted.incrementAndGet();
                }
                pastTheMark.countDown();
            });
            if (round % 2 == 0) { // half the rounds take while the producer is parked, half whenever it comes
                awaitState(producer, Thread.State.WAITING, emitted, highWaterMark, "the producer parks at the mark");
            }
            assertEquals(0, pipe.next());
            assertTrue(pastTheMark.await(10, TimeUnit.SECONDS), "round " + round + ": one take made room for the last item");
            producer.join(TimeUnit.SECONDS.toMillis(10));
            pipe.cancel();
        }
    }

    /** Every item once and in order, whatever the mark, with a consumer that sometimes stalls and a producer that sometimes does. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyItemArrivesOnceAndInOrder(long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        int highWaterMark = 1 + random.nextInt(64);
        int items = 200_000;
        Pipe<Integer> pipe = new Pipe<>(highWaterMark, "ordered pipe");
        SplittableRandom producerRandom = random.split();
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < items; i++) {
                pipe.emit(i);
                stall(producerRandom);
            }
            pipe.finish();
        }, task -> Thread.ofPlatform().daemon().start(task));
        int expected = 0;
        for (Object item = pipe.next(); item != ItemSource.END; item = pipe.next()) {
            assertEquals(expected++, item, "seed " + seed + ", high-water mark " + highWaterMark);
            stall(random);
        }
        assertEquals(items, expected);
        producer.get(60, TimeUnit.SECONDS);
    }

    /** Now and then a pause of up to 100 µs, long enough for the other side to park and for a lazy wait to time out. */
    private static void stall(SplittableRandom random) {
        if (random.nextInt(2_000) == 0) {
            long end = System.nanoTime() + random.nextInt(100_000);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
    }
}
