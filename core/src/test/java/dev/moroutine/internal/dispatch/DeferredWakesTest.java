package dev.moroutine.internal.dispatch;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.moroutine.Mo1;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Dispatches whose wake-ups wait for the end of their batch: none lost, none early. */
@Timeout(60)
class DeferredWakesTest {

    static final Mo1<AtomicInteger, Integer> count = mo(AtomicInteger::incrementAndGet);

    /** Seeded batches of 1–8 tasks over two workers, each batch sent when the workers are parked or on their way there. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void everyTaskOfEveryBatchRuns(long seed) throws Exception {
        Random random = new Random(seed);
        AtomicInteger runs = new AtomicInteger();
        int expected = 0;
        try (Pool pool = Moroutine.workers(2)) {
            for (int round = 0; round < 2_000; round++) {
                if (random.nextBoolean()) {
                    awaitParked(pool);
                }
                int tasks = 1 + random.nextInt(8);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                DeferredWakes.run(() -> {
                    for (int i = 0; i < tasks; i++) {
                        futures.add(pool.submit(assign(pool.workers().get(random.nextInt(2)), count.call(runs))));
                    }
                });
                expected += tasks;
                for (CompletableFuture<Integer> future : futures) {
                    future.get(10, TimeUnit.SECONDS); // a lost wake-up leaves it queued: a timeout, not a hang
                }
            }
        }
        assertEquals(expected, runs.get());
    }

    @Test
    void aParkedWorkerIsWokenWhenTheBatchEndsAndNotBefore() throws Exception {
        try (Pool pool = Moroutine.workers(1)) {
            AtomicInteger runs = new AtomicInteger();
            awaitParked(pool);
            List<CompletableFuture<Integer>> futures = new ArrayList<>();
            DeferredWakes.run(() -> {
                futures.add(pool.submit(count.call(runs)));
                futures.add(pool.submit(count.call(runs)));
                // Nothing wakes the parked worker inside the batch, so its first task cannot run yet.
                assertThrows(TimeoutException.class, () -> futures.get(0).get(50, TimeUnit.MILLISECONDS));
            });
            assertEquals(2, futures.get(1).get(10, TimeUnit.SECONDS));
            assertEquals(2, runs.get());
        }
    }

    @Test
    void aBatchThatThrowsStillWakesItsWorkersAndThrowsOn() throws Exception {
        try (Pool pool = Moroutine.workers(1)) {
            AtomicInteger runs = new AtomicInteger();
            awaitParked(pool);
            List<CompletableFuture<Integer>> futures = new ArrayList<>();
            IllegalStateException thrown = new IllegalStateException("the batch failed after its dispatch");
            IllegalStateException caught = assertThrows(IllegalStateException.class, () -> DeferredWakes.run(() -> {
                futures.add(pool.submit(count.call(runs)));
                throw thrown;
            }));
            assertSame(thrown, caught);
            assertEquals(1, futures.get(0).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aNestedBatchWakesItsOwnWorkersWhenItEnds() throws Exception {
        try (Pool pool = Moroutine.workers(2)) {
            AtomicInteger runs = new AtomicInteger();
            awaitParked(pool);
            List<CompletableFuture<Integer>> futures = new ArrayList<>();
            DeferredWakes.run(() -> {
                DeferredWakes.run(() -> futures.add(pool.submit(assign(pool.workers().get(0), count.call(runs)))));
                assertEquals(1, futures.get(0).orTimeout(10, TimeUnit.SECONDS).join()); // woken by the inner batch's end
                futures.add(pool.submit(assign(pool.workers().get(1), count.call(runs))));
            });
            assertEquals(2, futures.get(1).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void dispatchesOutsideABatchWakeAtOnce() throws Exception {
        try (Pool pool = Moroutine.workers(1)) {
            awaitParked(pool);
            assertEquals(1, pool.submit(count.call(new AtomicInteger())).get(10, TimeUnit.SECONDS));
        }
    }

    /** Waits until every worker of {@code pool} is parked (idle, past its spin). */
    private static void awaitParked(Pool pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (var handle : pool.workers()) {
            Thread thread = ((ThreadWorker) handle).thread();
            while (thread.getState() != Thread.State.WAITING) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(thread + " did not park within 10 s: " + thread.getState());
                }
                Thread.onSpinWait();
            }
        }
    }
}
