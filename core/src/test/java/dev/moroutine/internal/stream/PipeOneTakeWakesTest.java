package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The documented backpressure contract (review of 9b49c69): {@code Emitter.emit} "blocks while
 * highWaterMark items are in flight, until the consumer takes one"; {@code StreamTask.withHighWaterMark}
 * "the producer blocks while that many items are in flight"; a {@code Channel} "hands each item to a
 * consumer with fewer than highWaterMark items in flight". Here a producer (or a channel's
 * distributor) has parked at the mark, the consumer takes one item and then waits (up to 2 s) for the
 * producer's next step without taking more. With the batched wake (resumeAt = mark / 2) the
 * producer stays parked for every mark of 3 or more.
 */
@Timeout(60)
class PipeOneTakeWakesTest {

    /**
     * Waits, up to a deadline, until {@code ready} holds and the thread is parked (there is no event
     * for "parked", so its state is the condition waited on).
     */
    private static void awaitParked(Supplier<Thread> thread, BooleanSupplier ready, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            Thread t = thread.get();
            if (t != null && ready.getAsBoolean() && t.getState() == Thread.State.WAITING) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, what);
            Thread.yield();
        }
    }

    private static void awaitParked(Thread thread, BooleanSupplier ready, String what) {
        awaitParked(() -> thread, ready, what);
    }

    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {1, 2, 3, 4, 16})
    void aParkedProducerGoesOnOnceTheConsumerTakesOne(int highWaterMark) throws Exception {
        Pipe<Integer> pipe = new Pipe<>(highWaterMark, "the contract pipe");
        AtomicInteger emitted = new AtomicInteger();
        CountDownLatch pastTheMark = new CountDownLatch(1);
        Thread producer = Thread.ofPlatform().daemon().start(() -> {
            try {
                for (int i = 0; i <= highWaterMark; i++) {
                    pipe.emit(i);
                    if (emitted.incrementAndGet() > highWaterMark) {
                        pastTheMark.countDown();
                    }
                }
            } catch (RuntimeException stopped) {
                // cancelled at the end of the test
            }
        });
        awaitParked(producer, () -> emitted.get() == highWaterMark, "the producer parks at the mark");
        assertEquals(0, pipe.next());
        boolean went = pastTheMark.await(2, TimeUnit.SECONDS);
        pipe.cancel();
        producer.join(5_000);
        assertTrue(went, "one take made room: the parked producer emits its next item (" + (highWaterMark - 1)
                + " still in flight)");
    }

    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {1, 2, 3, 4, 16})
    void aParkedDistributorFeedsAConsumerWithRoom(int highWaterMark) throws Exception {
        AtomicInteger pulled = new AtomicInteger();
        AtomicReference<Thread> distributor = new AtomicReference<>();
        CountDownLatch pulledAgain = new CountDownLatch(1);
        Iterable<Integer> source = () -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Integer next() {
                distributor.set(Thread.currentThread());
                int item = pulled.getAndIncrement();
                if (item == highWaterMark + 1) {
                    pulledAgain.countDown();
                }
                return item;
            }
        };
        ChannelImpl<Integer> channel = new ChannelImpl<>(source, highWaterMark);
        try (LiveStream<Integer> consumer = channel.join()) {
            Iterator<Integer> items = consumer.iterator();
            // the mark's items routed, one more pulled and waiting for room, the distributor parked
            awaitParked(distributor::get, () -> pulled.get() == highWaterMark + 1, "the distributor fills the consumer");
            assertEquals(0, items.next());
            assertTrue(pulledAgain.await(2, TimeUnit.SECONDS),
                    "the consumer has room after one take: the distributor routes its waiting item and pulls the next");
        }
    }
}
