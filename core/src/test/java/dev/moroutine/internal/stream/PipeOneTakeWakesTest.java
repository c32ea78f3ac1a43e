package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The documented backpressure contract (review of 9b49c69): {@code Emitter.emit} "blocks while
 * highWaterMark items are in flight, until the consumer takes one"; {@code StreamTask.withHighWaterMark}
 * "the producer blocks while that many items are in flight"; a {@code Channel} "hands each item to a
 * consumer with fewer than highWaterMark items in flight". Here a producer (or a channel's
 * distributor) has parked at the mark, the consumer takes one item and then waits (2 s) for the
 * producer's next step without taking more. With the batched wake (resumeAt = mark / 2) the
 * producer stays parked for every mark of 3 or more.
 */
@Timeout(60)
class PipeOneTakeWakesTest {

    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {1, 2, 3, 4, 16})
    void aParkedProducerGoesOnOnceTheConsumerTakesOne(int highWaterMark) throws Exception {
        Pipe<Integer> pipe = new Pipe<>(highWaterMark, "the contract pipe");
        AtomicInteger emitted = new AtomicInteger();
        Thread producer = Thread.ofPlatform().daemon().start(() -> {
            try {
                for (int i = 0; i <= highWaterMark; i++) {
                    pipe.emit(i);
                    emitted.incrementAndGet();
                }
            } catch (RuntimeException stopped) {
                // cancelled at the end of the test
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(emitted.get() == highWaterMark && producer.getState() == Thread.State.WAITING)) {
            assertTrue(System.nanoTime() < deadline, "the producer parks at the mark");
            Thread.sleep(1);
        }
        assertEquals(0, pipe.next());
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (emitted.get() == highWaterMark && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        int seen = emitted.get();
        pipe.cancel();
        producer.join(5_000);
        assertEquals(highWaterMark + 1, seen,
                "one take made room: the parked producer emits its next item (" + (highWaterMark - 1) + " still in flight)");
    }

    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {1, 2, 3, 4, 16})
    void aParkedDistributorFeedsAConsumerWithRoom(int highWaterMark) throws Exception {
        AtomicInteger pulled = new AtomicInteger();
        Iterable<Integer> source = () -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Integer next() {
                return pulled.getAndIncrement();
            }
        };
        ChannelImpl<Integer> channel = new ChannelImpl<>(source, highWaterMark);
        try (LiveStream<Integer> consumer = channel.join()) {
            Iterator<Integer> items = consumer.iterator();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pulled.get() < highWaterMark + 1) { // the mark's items routed, one more pulled and waiting for room
                assertTrue(System.nanoTime() < deadline, "the distributor fills the consumer");
                Thread.sleep(1);
            }
            Thread.sleep(300); // far past the distributor's 50 µs spin: it has parked
            assertEquals(highWaterMark + 1, pulled.get());
            assertEquals(0, items.next());
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (pulled.get() == highWaterMark + 1 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(highWaterMark + 2, pulled.get(),
                    "the consumer has room after one take: the distributor routes its waiting item and pulls the next");
        }
    }
}
