package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.BatchesUnderWay;
import dev.moroutine.testing.Stress;
import dev.moroutine.testing.WorkerThreads;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pool counts its {@code runAll} batches from before the first task is sent to after the last
 * result is in, on every way a batch ends, so that its workers keep a batch's order while one runs
 * and take their queue's head directly once none does (a count left above zero would keep every
 * task on the slower path for good).
 */
@Timeout(120)
class BatchesUnderWayTest {

    static final Mo2<CountDownLatch, CountDownLatch, Integer> held = mo((started, release) -> {
        started.countDown();
        return release.await(60, TimeUnit.SECONDS) ? 1 : 0;
    });
    static final Mo1<Integer, Integer> failsOnThree = mo(i -> {
        if (i == 3) {
            throw new IllegalArgumentException("task 3 fails");
        }
        return i;
    });

    /** Counts a run of task {@code i}. */
    static final Mo2<AtomicIntegerArray, Integer, Integer> counted = mo((runs, i) -> {
        runs.incrementAndGet(i);
        return i;
    });

    /** E: waits for G, 1 if G ran within 10 s. */
    static final Mo1<CountDownLatch, Integer> awaitsG = mo(g -> g.await(10, TimeUnit.SECONDS) ? 1 : 0);
    /** G: lets E go. */
    static final Mo1<CountDownLatch, Integer> opensG = mo(g -> {
        g.countDown();
        return 1;
    });

    private static BatchesUnderWay batches(Pool pool) {
        return ((WorkerPool) pool).batches();
    }

    /**
     * Batches of two to four tasks, one after another, each starting while no other is under way, so
     * that a worker may read no batch and take the new one's first tasks directly, beside a thread that
     * keeps sending single tasks: every task runs exactly once, and every batch's results come back
     * in order.
     */
    @Test
    void batchesThatStartBesideSingleTasksRunEachTaskOnce() throws Exception {
        try (Pool pool = workers(2)) {
            int batchCount = Stress.scaled(2_000);
            AtomicIntegerArray batchRuns = new AtomicIntegerArray(batchCount * 4);
            AtomicIntegerArray singleRuns = new AtomicIntegerArray(batchCount * 2);
            CompletableFuture<Void> singles = CompletableFuture.runAsync(() -> {
                List<CompletableFuture<Integer>> sent = new ArrayList<>();
                for (int i = 0; i < singleRuns.length(); i++) {
                    sent.add(pool.submit(counted.call(singleRuns, i)));
                    if (sent.size() == 64) { // 64 in flight at most
                        sent.removeFirst().join();
                    }
                }
                sent.forEach(CompletableFuture::join);
            }, Thread::startVirtualThread);
            SplittableRandom random = new SplittableRandom(17);
            for (int b = 0; b < batchCount; b++) {
                int size = 2 + random.nextInt(3);
                List<Task<Integer>> batch = new ArrayList<>();
                for (int i = 0; i < size; i++) {
                    batch.add(counted.call(batchRuns, b * 4 + i));
                }
                List<Integer> results = pool.runAll(batch);
                for (int i = 0; i < size; i++) {
                    assertEquals(b * 4 + i, results.get(i), "batch " + b);
                    assertEquals(1, batchRuns.get(b * 4 + i), "batch " + b + ", task " + i);
                }
            }
            singles.get(60, TimeUnit.SECONDS);
            for (int i = 0; i < singleRuns.length(); i++) {
                assertEquals(1, singleRuns.get(i), "single task " + i);
            }
            assertFalse(batches(pool).any());
        }
    }

    /**
     * A worker that goes from its last task of a batch to a task of its own, which ends after the batch
     * has, goes idle keeping nothing of the batch: its array (one slot per task, emptied when the batch
     * ends) would otherwise stay reachable until another batch runs.
     */
    @Test
    void anIdlePoolKeepsNothingOfAFinishedBatch() throws Exception {
        int n = 1 << 16;
        try (Pool pool = workers(2)) {
            List<Task<Integer>> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                batch.add(counted.call(new AtomicIntegerArray(1), 0));
            }
            CountDownLatch holding = new CountDownLatch(2);
            CountDownLatch releaseFirst = new CountDownLatch(1);
            for (WorkerHandle worker : pool.workers()) { // both held while the whole batch is queued
                pool.submit(assign(worker, held.call(holding, releaseFirst)));
            }
            assertTrue(holding.await(60, TimeUnit.SECONDS));
            CompletableFuture<Integer> caller = CompletableFuture.supplyAsync(() -> pool.runAll(batch).size(), Thread::startVirtualThread);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (pool.workers().stream().mapToInt(WorkerHandle::activeCount).sum() < 2 + n) {
                assertTrue(System.nanoTime() < deadline, "the batch was never all queued");
                Thread.onSpinWait();
            }
            CountDownLatch behindStarted = new CountDownLatch(2);
            CountDownLatch releaseBehind = new CountDownLatch(1);
            List<CompletableFuture<Integer>> behind = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) { // queued behind the batch, ending after it
                behind.add(pool.submit(assign(worker, held.call(behindStarted, releaseBehind))));
            }
            releaseFirst.countDown();
            assertEquals(n, caller.get(60, TimeUnit.SECONDS));
            assertFalse(batches(pool).any(), "the batch has ended");
            releaseBehind.countDown();
            for (CompletableFuture<Integer> task : behind) {
                assertEquals(1, task.get(60, TimeUnit.SECONDS));
            }
            for (WorkerHandle worker : pool.workers()) {
                Thread thread = WorkerThreads.threadOf(worker);
                while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
                    assertTrue(System.nanoTime() < deadline, worker + " never went idle");
                    Thread.onSpinWait();
                }
                Field inBatch = worker.getClass().getDeclaredField("inBatch");
                inBatch.setAccessible(true);
                assertNull(inBatch.get(worker), worker + " went idle keeping the finished batch");
            }
        }
    }

    /**
     * Batches [E, G], E waiting for G, beside a thread that keeps 32 single tasks in flight: E and G
     * often land on one worker, E first, with G's shared slot soon taken by the single tasks sent after
     * it. The other worker, which took no task of the batch, still runs G while E waits.
     */
    @Test
    void aBatchTaskThatWaitsForALaterOneRunsBesideSingleTasks() throws Exception {
        try (Pool pool = workers(2)) {
            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Void> singles = CompletableFuture.runAsync(() -> {
                ArrayDeque<CompletableFuture<Integer>> inFlight = new ArrayDeque<>();
                while (!stop.get()) {
                    while (inFlight.size() < 32) {
                        inFlight.add(pool.submit(counted.call(new AtomicIntegerArray(1), 0)));
                    }
                    inFlight.poll().join();
                }
                inFlight.forEach(CompletableFuture::join);
            }, Thread::startVirtualThread);
            try {
                for (int round = 0; round < Stress.scaled(2_000); round++) {
                    CountDownLatch g = new CountDownLatch(1);
                    assertEquals(List.of(1, 1), pool.runAll(List.of(awaitsG.call(g), opensG.call(g))), "round " + round);
                }
            } finally {
                stop.set(true);
            }
            singles.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aBatchIsUnderWayWhileItRunsAndNotOnceItsResultsAreIn() throws Exception {
        try (Pool pool = workers(2)) {
            assertFalse(batches(pool).any(), "a new pool");
            CountDownLatch started = new CountDownLatch(2);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<List<Integer>> caller = CompletableFuture.supplyAsync(
                    () -> pool.runAll(List.of(held.call(started, release), held.call(started, release))), Thread::startVirtualThread);
            assertTrue(started.await(60, TimeUnit.SECONDS), "both tasks started");
            assertTrue(batches(pool).any(), "while its tasks run");
            release.countDown();
            assertEquals(List.of(1, 1), caller.get(60, TimeUnit.SECONDS));
            assertFalse(batches(pool).any(), "once its results are in");
        }
    }

    @Test
    void aBatchWithAFailedTaskEndsToo() {
        try (Pool pool = workers(2)) {
            List<Task<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                tasks.add(failsOnThree.call(i));
            }
            for (int round = 0; round < 50; round++) {
                TaskFailedException failed = assertThrows(TaskFailedException.class, () -> pool.runAll(tasks));
                assertEquals("task 3 fails", failed.getCause().getMessage());
                assertFalse(batches(pool).any(), "round " + round);
            }
            assertEquals(List.of(0, 1, 2), pool.runAll(tasks.subList(0, 3)), "the pool goes on");
            assertFalse(batches(pool).any());
        }
    }

    @Test
    void overlappingBatchesAreUnderWayUntilTheLastEnds() throws Exception {
        try (Pool pool = workers(2)) {
            CountDownLatch firstStarted = new CountDownLatch(1);
            CountDownLatch releaseFirst = new CountDownLatch(1);
            CompletableFuture<List<Integer>> first = CompletableFuture.supplyAsync(
                    () -> pool.runAll(List.of(held.call(firstStarted, releaseFirst))), Thread::startVirtualThread);
            assertTrue(firstStarted.await(60, TimeUnit.SECONDS));
            CountDownLatch secondStarted = new CountDownLatch(1);
            CountDownLatch releaseSecond = new CountDownLatch(1);
            CompletableFuture<List<Integer>> second = CompletableFuture.supplyAsync(
                    () -> pool.runAll(List.of(held.call(secondStarted, releaseSecond))), Thread::startVirtualThread);
            assertTrue(secondStarted.await(60, TimeUnit.SECONDS));
            releaseFirst.countDown();
            assertEquals(List.of(1), first.get(60, TimeUnit.SECONDS));
            assertTrue(batches(pool).any(), "the second batch still runs");
            releaseSecond.countDown();
            assertEquals(List.of(1), second.get(60, TimeUnit.SECONDS));
            assertFalse(batches(pool).any());
        }
    }

    @Test
    void aBatchRefusedByAClosedPoolNeverStarts() {
        Pool pool = workers(2);
        pool.close();
        assertThrows(RejectedExecutionException.class, () -> pool.runAll(List.of(failsOnThree.call(1))));
        assertFalse(batches(pool).any());
    }

    @Test
    void aBatchWhosePoolIsTerminatedMidwayEnds() throws Exception {
        Pool pool = workers(2);
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<List<Integer>> caller = CompletableFuture.supplyAsync(
                () -> pool.runAll(List.of(held.call(started, release), held.call(started, release))), Thread::startVirtualThread);
        assertTrue(started.await(60, TimeUnit.SECONDS));
        pool.terminate();
        assertThrows(Exception.class, () -> caller.get(60, TimeUnit.SECONDS));
        assertFalse(batches(pool).any());
        release.countDown();
    }
}
