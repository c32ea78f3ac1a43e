package dev.moroutine.stream;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.AbortController;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import dev.moroutine.Signal;
import dev.moroutine.Task;
import dev.moroutine.testing.Stress;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a {@code map} stops: its signal ends it like a finished loop; an interrupt ends the wait. */
@Timeout(120)
class MapStoppingTest {

    static final Mo1<Integer, Integer> identity = mo(x -> x);
    static final Mo2<CountDownLatch, AtomicInteger, Integer> gated = mo((gate, ran) -> {
        ran.incrementAndGet();
        gate.await();
        return 1;
    });
    static final Mo2<Pool, Task<Integer>, Long> countMapped = mo((other, task) -> map(other, List.of(task, task), 2).count());
    static final Mo1<Signal, Integer> untilAborted = mo(signal -> {
        while (!signal.aborted()) Thread.onSpinWait();
        signal.throwIfAborted();
        return 0;
    });

    /** An aborted map used to throw "map was aborted by its signal" out of the loop. */
    @Test
    void aForLoopOverAMapEndsNormallyWhenItsSignalFires() {
        int rounds = Stress.scaled(20);
        int threw = 0;
        try (Pool pool = workers(2)) {
            for (int round = 0; round < rounds; round++) {
                AtomicLong pulled = new AtomicLong();
                Iterator<Task<Integer>> endless = LongStream.iterate(0, i -> i + 1)
                        .mapToObj(i -> {
                            pulled.incrementAndGet();
                            return identity.call((int) i);
                        })
                        .iterator();
                var controller = new AbortController();
                int taken = 0;
                try (LiveStream<Integer> results = map(pool, endless, 2, controller.signal())) {
                    for (int ignored : results) {
                        if (++taken == 50) controller.abort("enough");
                    }
                } catch (CancellationException e) {
                    threw++;
                }
                assertTrue(controller.signal().aborted(), "the signal says why the loop ended");
                assertEquals(50, taken, "no result is taken after the signal fires");
                assertTrue(pulled.get() <= 52, "nothing is pulled after the signal fires: " + pulled.get());
            }
        }
        assertEquals(0, threw, "rounds in which the loop threw instead of ending");
    }

    /** Tasks that watch the same signal fail with CancellationException: the map still just ends. */
    @Test
    void tasksStoppedByTheSameSignalEndTheMapNormally() throws Exception {
        var controller = new AbortController();
        try (Pool pool = workers(2)) {
            Iterator<Task<Integer>> endless = IntStream.iterate(0, i -> i + 1).mapToObj(i -> untilAborted.call(controller.signal())).iterator();
            CompletableFuture<Long> count = CompletableFuture.supplyAsync(() -> {
                try (LiveStream<Integer> results = map(pool, endless, 2, controller.signal())) {
                    return results.count();
                }
            });
            controller.abort("stop");
            assertEquals(0, count.get(10, TimeUnit.SECONDS));
        }
    }

    /** A worker waiting on map(otherPool, …) used to ignore terminate(): MapSource waited again after the interrupt. */
    @Test
    void terminateStopsAWorkerWaitingOnAMapOverAnotherPool() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (Pool other = workers(1)) {
            Pool pool = workers(1);
            Thread worker = threadOf(pool.workers().get(0));
            CompletableFuture<Long> consuming = pool.submit(countMapped.call(other, gated.call(gate, ran)));
            try {
                awaitStarted(ran);
                awaitState(worker, Thread.State.WAITING);
                pool.terminate();
                assertThrows(CancellationException.class, consuming::join);
                worker.join(TimeUnit.SECONDS.toMillis(10));
                assertFalse(worker.isAlive(), "the worker stopped waiting for map's results");
            } finally {
                gate.countDown();
            }
        }
        assertEquals(1, ran.get(), "map's task that had not started was cancelled");
    }

    @Test
    void anInterruptedConsumerGetsACancellationExceptionAndKeepsItsInterruptStatus() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (Pool pool = workers(1)) {
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread consumer = Thread.ofPlatform().start(() -> {
                try (LiveStream<Integer> results = map(pool, List.of(gated.call(gate, ran), gated.call(gate, ran)), 2)) {
                    results.forEach(x -> {});
                    outcome.complete(null);
                } catch (Throwable e) {
                    outcome.complete(Thread.currentThread().isInterrupted() ? e : new AssertionError("interrupt status lost", e));
                }
            });
            try {
                awaitStarted(ran);
                awaitState(consumer, Thread.State.WAITING);
                consumer.interrupt();
                Throwable e = outcome.get(10, TimeUnit.SECONDS);
                assertInstanceOf(CancellationException.class, e);
                assertTrue(e.getMessage().startsWith("interrupted while waiting for a result of map over "), e.getMessage());
            } finally {
                gate.countDown();
            }
        }
        assertEquals(1, ran.get(), "map's task that had not started was cancelled");
    }

    /**
     * Closing a live stream from another thread ends it for the thread waiting on it, as it does
     * for a task's stream; a map's consumer used to get "a task of map was cancelled" instead.
     */
    @Test
    void closingAMapFromAnotherThreadEndsItsWaitingConsumersStream() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (Pool pool = workers(1)) {
            LiveStream<Integer> results = map(pool, List.of(gated.call(gate, ran), gated.call(gate, ran)), 2);
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            Thread consumer = Thread.ofPlatform().start(() -> {
                try {
                    outcome.complete(results.toList());
                } catch (Throwable e) {
                    outcome.complete(e);
                }
            });
            try {
                awaitStarted(ran);
                awaitState(consumer, Thread.State.WAITING);
                results.close();
                assertEquals(List.of(), outcome.get(10, TimeUnit.SECONDS));
            } finally {
                gate.countDown();
            }
        }
        assertEquals(1, ran.get(), "map's task that had not started was cancelled");
    }

    /**
     * A close from another thread while the consumer was pulling a task from the source used to
     * miss that task: it was submitted after the close cancelled what was in flight, so it ran, and
     * the consumer waited for it instead of ending.
     */
    @RepeatedTest(5)
    void closingAMapWhileItsConsumerPullsATaskEndsTheStreamWithoutRunningThatTask() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<Void> pulling = new CompletableFuture<>();
        CountDownLatch closed = new CountDownLatch(1);
        Iterator<Task<Integer>> closedWhilePulled = new Iterator<>() {
            private boolean pulled;

            @Override
            public boolean hasNext() {
                return !pulled;
            }

            @Override
            public Task<Integer> next() {
                pulled = true;
                pulling.complete(null);
                try {
                    assertTrue(closed.await(10, TimeUnit.SECONDS), "the stream was not closed");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                return gated.call(gate, ran);
            }
        };
        try (Pool pool = workers(1)) {
            LiveStream<Integer> results = map(pool, closedWhilePulled, 1);
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    outcome.complete(results.toList());
                } catch (Throwable e) {
                    outcome.complete(e);
                }
            });
            try {
                pulling.get(10, TimeUnit.SECONDS);
                results.close();
                closed.countDown();
                assertEquals(List.of(), outcome.get(10, TimeUnit.SECONDS), "the consumer's stream ends at once");
            } finally {
                gate.countDown();
            }
        }
        assertEquals(0, ran.get(), "the task pulled while the map was being closed did not run");
    }

    /** Waits until map's first task runs: its consumer is then waiting for results, or about to. */
    private static void awaitStarted(AtomicInteger ran) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ran.get() == 0) {
            if (System.nanoTime() > deadline) fail("map's first task did not start");
            Thread.onSpinWait();
        }
    }

    private static void awaitState(Thread thread, Thread.State state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != state) {
            if (System.nanoTime() > deadline) fail(thread.getName() + " stayed " + thread.getState());
            Thread.onSpinWait();
        }
    }
}
