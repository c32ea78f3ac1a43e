package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.stream.LiveStream;
import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer end closed from another thread (an isolated worker's pump closing its feeder's end when
 * the task completes, an execution completed by a stop before the interrupt) while its thread pulls:
 * it must take nothing more from the source (the items go to the consumers still open), and a pull
 * blocked at the time must end (the ItemSource contract), though other consumers keep the channel open.
 */
@Timeout(120)
class ChannelCloseWhilePullingTest {

    private static final long WAIT_SECONDS = 10;

    /** A closed end, blocked waiting for the stream task's next item, must return END at the close, not when an item comes. */
    @Test
    void aPullBlockedOnTheSourceEndsWhenItsEndIsClosedFromAnotherThread() throws Exception {
        ChannelPullTest.Gate gate = new ChannelPullTest.Gate(new CountDownLatch(1), 100);
        ChannelImpl<Integer> channel = new ChannelImpl<>(ChannelPullTest.gated.call(gate), 16);
        LiveStream<Integer> first = channel.join();
        LiveStream<Integer> second = channel.join(); // keeps the channel open
        try {
            CompletableFuture<Object> hasNext = new CompletableFuture<>();
            Thread pulling = ChannelPullTest.onOwnThread("first-consumer", () -> first.iterator().hasNext(), hasNext);
            ChannelPullTest.awaitParked(pulling, "the first consumer waits for the source's first item");
            first.close();
            Object more;
            try {
                more = hasNext.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("a closed end's next() still waits for the source " + WAIT_SECONDS + " s after the close ("
                        + pulling.getState() + "); the contract says it returns END");
                return;
            }
            assertEquals(false, more);
        } finally {
            gate.open().countDown();
            first.close();
            second.close();
        }
    }

    /**
     * An end closed while its thread waits (for the source, or for the lock behind another consumer)
     * takes nothing: every item reaches the consumers left open, none is pulled into the closed
     * end's run and dropped.
     */
    @Test
    void anEndClosedWhileItsThreadPullsTakesNoItemFromTheOthers() throws Exception {
        for (int round = 0; round < Stress.scaled(5); round++) {
            ChannelPullTest.Gate gate = new ChannelPullTest.Gate(new CountDownLatch(1), 1_000);
            ChannelImpl<Integer> channel = new ChannelImpl<>(ChannelPullTest.gated.call(gate), 16);
            LiveStream<Integer> closed = channel.join();
            LiveStream<Integer> open = channel.join();
            try {
                CompletableFuture<Object> hasNext = new CompletableFuture<>();
                Thread pulling = ChannelPullTest.onOwnThread("closed-consumer", () -> closed.iterator().hasNext(), hasNext);
                ChannelPullTest.awaitParked(pulling, "the consumer waits for the source's first item");
                closed.close(); // from this thread: another consumer is still open, so the source goes on
                gate.open().countDown();
                assertEquals(false, hasNext.get(WAIT_SECONDS, TimeUnit.SECONDS), "a closed end took an item");
                List<Integer> all;
                try (open) {
                    all = open.toList();
                }
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < gate.count(); i++) {
                    expected.add(i);
                }
                assertEquals(expected.size(), all.size(), "round " + round + ": the open consumer missed "
                        + (expected.size() - all.size()) + " items; it got from " + (all.isEmpty() ? "-" : all.get(0)));
                assertEquals(expected, all, "round " + round);
            } finally {
                gate.open().countDown();
                closed.close();
                open.close();
            }
        }
    }
}
