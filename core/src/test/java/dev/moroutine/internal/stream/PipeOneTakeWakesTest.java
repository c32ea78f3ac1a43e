package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The documented backpressure contract (review of 9b49c69): {@code Emitter.emit} "blocks while
 * highWaterMark items are in flight, until the consumer takes one"; {@code StreamTask.withHighWaterMark}
 * "the producer blocks while that many items are in flight". Here a producer has parked at the
 * mark, the consumer takes one item and then waits (up to 2 s) for the
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
}
