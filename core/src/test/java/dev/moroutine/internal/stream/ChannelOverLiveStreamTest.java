package dev.moroutine.internal.stream;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;
import static dev.moroutine.stream.Streaming.emitting;
import static dev.moroutine.stream.Streaming.map;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.TaskFailedException;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.testing.Stress;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A channel over a live stream (an {@code Iterable}: another task's stream, a {@code map}'s results,
 * another channel's end), pulled on its consumers' threads. A live stream is cancelled when the
 * thread waiting in its {@code next()} is interrupted (the ItemSource contract): so an interrupt
 * aimed at one consumer (its task timed out, its worker stopped) must not end the channel for the
 * others as if its source were exhausted, with items never read. Another task's stream is read
 * through its pipe, which the interrupt leaves alone: the others get every item. A {@code map}'s
 * results are not: the others fail.
 */
@Timeout(120)
class ChannelOverLiveStreamTest {

    private static final long WAIT_SECONDS = 10;

    static final Mo1<CountDownLatch, Integer> held = mo(latch -> {
        latch.await();
        return 1;
    });

    /** Emits 0 to {@code count - 1} at once, says so, then holds its run until it is let go. */
    static final StreamMo1<Held, Integer> emitsThenHolds = emitting((Held held, Emitter<Integer> out) -> {
        for (int i = 0; i < held.count(); i++) {
            out.emit(i);
        }
        held.emitted().countDown();
        held.release().await();
    });

    /** What {@link #emitsThenHolds} emits, and the latches it counts down and waits for. */
    record Held(CountDownLatch emitted, CountDownLatch release, int count) {}

    @Test
    void anotherTasksStreamIsPulledInRunsOfTheHighWaterMarkAsTheTaskItselfWouldBe() throws Exception {
        Held held = new Held(new CountDownLatch(1), new CountDownLatch(1), 100);
        LiveStream<Integer> upstream = emitsThenHolds.call(held).join();
        ChannelImpl<Integer> channel = new ChannelImpl<>(upstream, 16);
        LiveStream<Integer> first = channel.join();
        LiveStream<Integer> second = channel.join();
        try {
            assertTrue(held.emitted().await(WAIT_SECONDS, TimeUnit.SECONDS), "the source did not emit its 100 items");
            assertEquals(0, first.iterator().next());
            assertEquals(16, second.iterator().next(), "the first consumer's pull takes the items queued in the live stream's"
                    + " pipe up to the channel's high-water mark (16), so the second one's first item is the 17th");
        } finally {
            held.release().countDown();
            first.close();
            second.close();
            upstream.close();
        }
    }

    @Test
    void aConsumerInterruptedWhileWaitingForALiveStreamDoesNotEndTheChannelQuietlyForTheOthers() throws Exception {
        for (int round = 0; round < Stress.scaled(3); round++) {
            ChannelPullTest.Gate gate = new ChannelPullTest.Gate(new CountDownLatch(1), 100);
            LiveStream<Integer> upstream = ChannelPullTest.gated.call(gate).join();
            ChannelImpl<Integer> channel = new ChannelImpl<>(upstream, 16);
            LiveStream<Integer> first = channel.join();
            LiveStream<Integer> second = channel.join();
            try {
                CompletableFuture<Object> firstGot = new CompletableFuture<>();
                Thread waiting = ChannelPullTest.onOwnThread("first-consumer", ChannelPullTest.firstItemOf(first), firstGot);
                ChannelPullTest.awaitParked(waiting, "the first consumer waits inside the live stream");
                waiting.interrupt(); // aimed at the first consumer only
                assertInstanceOf(CancellationException.class, firstGot.get(WAIT_SECONDS, TimeUnit.SECONDS));
                gate.open().countDown();
                CompletableFuture<List<Integer>> secondGot = CompletableFuture.supplyAsync(() -> {
                    try (second) {
                        return second.toList();
                    }
                });
                // The channel reads the task's stream through its pipe: the interrupt cancels nothing but the first consumer.
                List<Integer> all = secondGot.get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertEquals(gate.count(), all.size(), "round " + round + ": the other consumer got " + all.size() + " of "
                        + gate.count() + " items: " + all);
            } finally {
                gate.open().countDown();
                first.close();
                second.close();
                upstream.close();
            }
        }
    }

    @Test
    void aConsumerInterruptedWhileWaitingForAMapFailsTheOthers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Pool pool = workers(1)) {
            LiveStream<Integer> results = map(pool, List.of(held.call(release), held.call(release)).iterator(), 1);
            ChannelImpl<Integer> channel = new ChannelImpl<>(results, 16);
            LiveStream<Integer> first = channel.join();
            LiveStream<Integer> second = channel.join();
            try {
                CompletableFuture<Object> firstGot = new CompletableFuture<>();
                Thread waiting = ChannelPullTest.onOwnThread("first-consumer", ChannelPullTest.firstItemOf(first), firstGot);
                ChannelPullTest.awaitParked(waiting, "the first consumer waits inside the map");
                waiting.interrupt();
                assertInstanceOf(CancellationException.class, firstGot.get(WAIT_SECONDS, TimeUnit.SECONDS));
                release.countDown();
                TaskFailedException failed = assertThrows(TaskFailedException.class, () -> {
                    try (second) {
                        second.toList();
                    }
                });
                assertInstanceOf(CancellationException.class, failed.getCause(), "the map was cancelled: " + failed);
            } finally {
                release.countDown();
                first.close();
                second.close();
            }
        }
    }
}
