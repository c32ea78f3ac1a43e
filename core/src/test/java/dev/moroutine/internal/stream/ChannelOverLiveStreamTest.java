package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.stream.LiveStream;
import dev.moroutine.testing.Stress;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A channel over a live stream (an {@code Iterable}: another task's stream, a {@code map}'s results,
 * another channel's end), pulled an item at a time on its consumers' threads. A live stream is
 * cancelled when the thread waiting in its {@code next()} is interrupted (the ItemSource contract):
 * so an interrupt aimed at one consumer (its task timed out, its worker stopped) must not end the
 * channel for the others as if its source were exhausted, with items never read.
 */
@Timeout(120)
class ChannelOverLiveStreamTest {

    private static final long WAIT_SECONDS = 10;

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
                Thread waiting = Thread.ofPlatform().name("first-consumer").start(() -> {
                    try (first) {
                        firstGot.complete(first.iterator().next());
                    } catch (Throwable e) {
                        firstGot.complete(e);
                    }
                });
                ChannelPullTest.awaitParked(waiting, "the first consumer waits inside the live stream");
                waiting.interrupt(); // aimed at the first consumer only
                assertInstanceOf(CancellationException.class, firstGot.get(WAIT_SECONDS, TimeUnit.SECONDS));
                gate.open().countDown();
                CompletableFuture<List<Integer>> secondGot = CompletableFuture.supplyAsync(() -> {
                    try (second) {
                        return second.toList();
                    }
                });
                List<Integer> all;
                try {
                    all = secondGot.get(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (ExecutionException failed) {
                    continue; // the channel failed for the other consumer: it knows items may be missing
                }
                assertEquals(gate.count(), all.size(), "round " + round + ": the other consumer's stream ended normally"
                        + " after " + all.size() + " of " + gate.count() + " items: " + all);
            } finally {
                gate.open().countDown();
                first.close();
                second.close();
                upstream.close();
            }
        }
    }
}
