package dev.moroutine.internal.stream;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.emitting;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A channel's consumers pull its source themselves, under its lock: on their own threads, never two
 * at once, every item to exactly one of them; a consumer interrupted while it waits for the source
 * fails alone and the source goes on for the others; and a channel whose only end closes while it
 * attaches (and opens the source) always ends, and so stops its source.
 */
@Timeout(120)
class ChannelPullTest {

    private static final long WAIT_SECONDS = 10;

    /** Waits for the gate, then emits 0 to {@code count - 1}. */
    static final StreamMo1<Gate, Integer> gated = emitting((Gate gate, Emitter<Integer> out) -> {
        gate.open.await();
        for (int i = 0; i < gate.count; i++) {
            out.emit(i);
        }
    });

    static final Mo1<Integer, Integer> same = mo(x -> x);

    /** What {@link #gated} waits for, and how many items it emits then. */
    record Gate(CountDownLatch open, int count) {}

    @Test
    void consumersPullOnTheirOwnThreadsNeverTwoAtOnceAndEveryItemReachesOne() throws Exception {
        int items = 30_000;
        int consumers = 3;
        AtomicInteger inside = new AtomicInteger();
        List<String> wrongThreads = new CopyOnWriteArrayList<>();
        AtomicInteger overlaps = new AtomicInteger();
        Iterable<Integer> counting = () -> new Iterator<>() { // not a Collection: pulled one item at a time
            private int next;

            @Override
            public boolean hasNext() {
                return next < items;
            }

            @Override
            public Integer next() {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                try {
                    if (!Thread.currentThread().getName().startsWith("consumer-")) {
                        wrongThreads.add(Thread.currentThread().getName());
                    }
                    if (next == items) {
                        throw new NoSuchElementException();
                    }
                    return next++;
                } finally {
                    inside.decrementAndGet();
                }
            }
        };
        ChannelImpl<Integer> channel = new ChannelImpl<>(counting, 8);
        List<LiveStream<Integer>> ends = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            ends.add(channel.join());
        }
        List<CompletableFuture<List<Integer>>> taken = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            LiveStream<Integer> end = ends.get(c);
            CompletableFuture<List<Integer>> got = new CompletableFuture<>();
            Thread.ofPlatform().name("consumer-" + c).start(() -> {
                try (end) {
                    got.complete(end.toList());
                } catch (Throwable e) {
                    got.completeExceptionally(e);
                }
            });
            taken.add(got);
        }
        boolean[] seen = new boolean[items];
        for (CompletableFuture<List<Integer>> got : taken) {
            List<Integer> one = got.get(WAIT_SECONDS * 3, TimeUnit.SECONDS);
            for (int i = 0; i < one.size(); i++) {
                int item = one.get(i);
                assertTrue(i == 0 || one.get(i - 1) < item, "a consumer took " + one.get(Math.max(0, i - 1)) + " before " + item);
                assertFalse(seen[item], "item " + item + " reached two consumers");
                seen[item] = true;
            }
        }
        for (int i = 0; i < items; i++) {
            assertTrue(seen[i], "item " + i + " reached no consumer");
        }
        assertEquals(List.of(), wrongThreads, "the source was pulled on threads that are not its consumers'");
        assertEquals(0, overlaps.get(), "pulls that overlapped");
    }

    @Test
    void aConsumerInterruptedWhileWaitingForAStreamTaskFailsAloneAndTheOtherGetsEveryItem() throws Exception {
        for (int round = 0; round < Stress.scaled(5); round++) {
            Gate gate = new Gate(new CountDownLatch(1), 1_000);
            ChannelImpl<Integer> channel = new ChannelImpl<>(gated.call(gate), 16);
            LiveStream<Integer> first = channel.join();
            LiveStream<Integer> second = channel.join();
            try {
                interruptOneOfTwo(channel, gate, first, second, round);
            } finally {
                gate.open.countDown(); // the source's worker is free whatever failed
                first.close();
                second.close();
            }
        }
    }

    private void interruptOneOfTwo(ChannelImpl<Integer> channel, Gate gate, LiveStream<Integer> first, LiveStream<Integer> second,
            int round) throws Exception {
        CompletableFuture<Object> firstGot = new CompletableFuture<>();
        Thread waiting = onOwnThread("first-consumer", firstItemOf(first), firstGot);
        awaitParked(waiting, "the first consumer waits for the source's first item");
        CompletableFuture<List<Integer>> secondGot = new CompletableFuture<>();
        Thread behind = Thread.ofPlatform().name("second-consumer").start(() -> {
            try (second) {
                secondGot.complete(second.toList());
            } catch (Throwable e) {
                secondGot.completeExceptionally(e);
            }
        });
        awaitParked(behind, "the second consumer waits for the first one's pull");
        waiting.interrupt();
        Object failed = firstGot.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertInstanceOf(CancellationException.class, failed);
        assertEquals("interrupted while waiting for an item of " + channel + " consumer 1", ((Throwable) failed).getMessage());
        gate.open.countDown();
        List<Integer> all = secondGot.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(gate.count, all.size(), "round " + round + ": the source went on for the other consumer");
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.get(i), "round " + round);
        }
    }

    @Test
    void aConsumerInterruptedInsideABlockingIterableFailsAloneAndTheIterableGoesOn() throws Exception {
        BlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
        Iterable<Integer> takes = () -> new Iterator<>() {
            private Integer next;

            @Override
            public boolean hasNext() {
                if (next == null) {
                    try {
                        next = queue.take();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while taking from the queue", e);
                    }
                }
                return next >= 0;
            }

            @Override
            public Integer next() {
                Integer item = next;
                next = null;
                return item;
            }
        };
        ChannelImpl<Integer> channel = new ChannelImpl<>(takes, 4);
        LiveStream<Integer> first = channel.join();
        LiveStream<Integer> second = channel.join();
        CompletableFuture<Object> firstGot = new CompletableFuture<>();
        Thread waiting = onOwnThread("first-consumer", firstItemOf(first), firstGot);
        awaitParked(waiting, "the first consumer waits inside the iterable");
        waiting.interrupt();
        Object failed = firstGot.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertInstanceOf(CancellationException.class, failed);
        for (int i = 0; i < 100; i++) {
            queue.add(i);
        }
        queue.add(-1);
        try (second) {
            List<Integer> all = second.toList();
            assertEquals(100, all.size(), "the iterable went on for the other consumer: " + all);
        }
    }

    @Test
    void aChannelWhoseOnlyEndClosesWhileItAttachesAlwaysEndsAndStopsItsSource() throws Exception {
        Invocation consumer = (Invocation) same.call(1);
        CyclicBarrier both = new CyclicBarrier(2);
        for (int round = 0; round < Stress.scaled(300); round++) {
            // Open at once, and more items than the test takes: it emits until its stream is closed (checked after the
            // test: every worker is idle), or fills its pipe and waits, and the next round's source waits behind it.
            ChannelImpl<Integer> channel = new ChannelImpl<>(gated.call(new Gate(new CountDownLatch(0), Integer.MAX_VALUE)), 4);
            Endpoint.Binding end = channel.bind(consumer);
            CompletableFuture<Void> attached = CompletableFuture.runAsync(() -> {
                await(both);
                end.admitted();
            });
            await(both);
            end.completed(null); // the execution completed (cancelled, say) as its worker admitted it
            attached.get(WAIT_SECONDS, TimeUnit.SECONDS);
            IllegalStateException ended = assertThrows(IllegalStateException.class, channel::join, "round " + round);
            assertTrue(ended.getMessage().contains("has ended"), ended.getMessage());
        }
    }

    /** Runs {@code action} on a platform thread of its own; {@code got} holds what it returned, or what it threw. */
    static Thread onOwnThread(String name, Callable<?> action, CompletableFuture<Object> got) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                got.complete(action.call());
            } catch (Throwable e) {
                got.complete(e);
            }
        });
    }

    /** The first item of {@code end}, which is closed then, as {@link #onOwnThread} takes it. */
    static Callable<Integer> firstItemOf(LiveStream<Integer> end) {
        return () -> {
            try (end) {
                return end.iterator().next();
            }
        };
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits, up to a deadline, until the thread is parked (there is no event for it, so its state is waited on). */
    static void awaitParked(Thread thread, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        for (;;) {
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, what + ": it is " + state);
            Thread.onSpinWait();
        }
    }
}
