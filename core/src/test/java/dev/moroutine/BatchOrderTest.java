package dev.moroutine;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.testing.Stress;
import dev.moroutine.testing.WorkerThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code runAll} batch on a pool that shares work runs in the order it was sent, whichever worker
 * each task was placed on: a worker that is free takes the batch's oldest task that nobody has
 * taken, not the next one placed on it. Every task runs exactly once, also with other tasks and
 * other batches between them, when the pool closes or is terminated mid-batch, and when a task
 * kills the thread that took it.
 */
@Timeout(120)
class BatchOrderTest {

    /** Records that task {@code i} started, and on which thread; task 0 waits for {@code gate}, which task 5 opens. */
    static final Mo3<Integer, CountDownLatch, Queue<String>, Integer> step = mo((i, gate, starts) -> {
        starts.add(i + "@" + Thread.currentThread().getName());
        if (i == 0 && !gate.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("task 5 never ran");
        }
        if (i == 5) {
            gate.countDown();
        }
        return i;
    });
    /** Holds its worker until {@code release} opens. */
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, release) -> {
        started.countDown();
        return release.await(60, TimeUnit.SECONDS);
    });
    static final Mo2<AtomicIntegerArray, Integer, Integer> markAfterWork = mo(BatchOrderTest::mark);
    static final Mo1<Integer, Integer> recurse = mo(BatchOrderTest::depth);

    /** Works 40 µs (every seventh) or 0–2 µs, then counts a run of task {@code i}. */
    private static int mark(AtomicIntegerArray runs, int i) {
        long end = System.nanoTime() + (i % 7 == 0 ? 40 : i % 3) * 1_000L;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        runs.incrementAndGet(i);
        return i;
    }

    private static int depth(int n) {
        return depth(n + 1) + 1;
    }

    /**
     * Seven tasks placed round robin on two workers (0, 2, 4, 6 on one; 1, 3, 5 on the other), sent
     * while both workers are held, so that all are queued before either starts. Task 0 then holds
     * its thread until task 5 runs; the other thread starts 1 to 5 in the order they were sent, though
     * two of them were placed on the held worker. (Taking the next task placed on it, it would run
     * 3 and 5 before 2 and 4; the thread held in task 0 may be either: the one that reaches the batch
     * first takes task 0, the batch's oldest.)
     */
    @Test
    void aFreeWorkerTakesTheBatchsOldestTaskWhereverItWasPlaced() throws Exception {
        for (int round = 0; round < Stress.scaled(100); round++) {
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Queue<String> starts = new ConcurrentLinkedQueue<>();
            try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(roundRobin()))) {
                CountDownLatch started = new CountDownLatch(2);
                List<CompletableFuture<Boolean>> holders = new ArrayList<>();
                for (WorkerHandle worker : pool.workers()) {
                    holders.add(pool.submit(assign(worker, hold.call(started, release))));
                }
                assertTrue(started.await(60, TimeUnit.SECONDS));
                List<Task<Integer>> batch = new ArrayList<>();
                for (int i = 0; i < 7; i++) {
                    batch.add(step.call(i, gate, starts));
                }
                CompletableFuture<List<Integer>> caller = CompletableFuture.supplyAsync(() -> pool.runAll(batch), Thread::startVirtualThread);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (pool.workers().stream().mapToInt(WorkerHandle::activeCount).sum() < 2 + 7) { // nothing can finish yet
                    assertTrue(System.nanoTime() < deadline, "round " + round + ": the batch was never all queued");
                    Thread.onSpinWait();
                }
                release.countDown();
                assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), caller.get(60, TimeUnit.SECONDS));
                for (CompletableFuture<Boolean> holder : holders) {
                    assertTrue(holder.get(60, TimeUnit.SECONDS));
                }
            }
            String held = starts.stream().filter(s -> s.startsWith("0@")).findFirst().orElseThrow().substring(2);
            // Task 6 is left out: exposed only once its own dispatch has returned, which the wait above does not
            // cover, it may run as soon as a thread comes to it, as any task not exposed yet.
            List<Integer> free = starts.stream().filter(s -> !s.endsWith("@" + held))
                    .map(s -> Integer.valueOf(s.substring(0, s.indexOf('@')))).filter(i -> i != 6).toList();
            assertEquals(List.of(1, 2, 3, 4, 5), free.subList(0, Math.min(free.size(), 5)), "round " + round + ": " + starts);
        }
    }

    /**
     * Batches of every size, two callers at once, beside single tasks and tasks assigned to one
     * worker: every task of every batch runs exactly once and the results come back in order.
     */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3, 4})
    @Timeout(300)
    void everyTaskOfOverlappingBatchesRunsExactlyOnce(int size) throws Exception {
        int rounds = Stress.scaled(300);
        try (Pool pool = workers(size)) {
            for (int round = 0; round < rounds; round++) {
                SplittableRandom random = new SplittableRandom(round * 31L + size);
                int[] sizes = {1 + random.nextInt(80), 1 + random.nextInt(80)};
                AtomicIntegerArray[] runs = {new AtomicIntegerArray(sizes[0]), new AtomicIntegerArray(sizes[1])};
                AtomicIntegerArray singles = new AtomicIntegerArray(40);
                List<CompletableFuture<List<Integer>>> callers = new ArrayList<>();
                for (int c = 0; c < 2; c++) {
                    List<Task<Integer>> batch = new ArrayList<>();
                    for (int i = 0; i < sizes[c]; i++) {
                        batch.add(markAfterWork.call(runs[c], i));
                    }
                    callers.add(CompletableFuture.supplyAsync(() -> pool.runAll(batch), Thread::startVirtualThread));
                }
                List<CompletableFuture<Integer>> others = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    Task<Integer> task = markAfterWork.call(singles, i);
                    others.add(pool.submit(i % 4 == 0 ? assign(pool.workers().get(i % size), task) : task));
                }
                for (int c = 0; c < 2; c++) {
                    List<Integer> results = callers.get(c).get(60, TimeUnit.SECONDS);
                    for (int i = 0; i < sizes[c]; i++) {
                        assertEquals(i, results.get(i));
                        assertEquals(1, runs[c].get(i), "round " + round + ", batch " + c + ": task " + i);
                    }
                }
                for (int i = 0; i < 40; i++) {
                    assertEquals(i, others.get(i).get(60, TimeUnit.SECONDS));
                    assertEquals(1, singles.get(i), "round " + round + ": single task " + i);
                }
            }
        }
    }

    /** A pool closed while a batch runs still runs all of it; one terminated settles every task, and the caller returns. */
    @ParameterizedTest(name = "terminate: {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(300)
    void aBatchInFlightWhenThePoolStopsNeverHangs(boolean terminate) throws Exception {
        for (int round = 0; round < Stress.scaled(150); round++) {
            AtomicIntegerArray runs = new AtomicIntegerArray(200);
            List<Task<Integer>> batch = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                batch.add(markAfterWork.call(runs, i));
            }
            Pool pool = workers(2);
            // Both workers held while the batch is sent, so that it is all queued before any of it runs.
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(2);
            for (WorkerHandle worker : pool.workers()) {
                pool.submit(assign(worker, hold.call(started, release)));
            }
            assertTrue(started.await(60, TimeUnit.SECONDS));
            CompletableFuture<List<Integer>> caller = CompletableFuture.supplyAsync(() -> pool.runAll(batch), Thread::startVirtualThread);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (pool.workers().stream().mapToInt(WorkerHandle::activeCount).sum() < 2 + 200) {
                assertTrue(System.nanoTime() < deadline, "round " + round + ": the batch was never all sent");
                Thread.onSpinWait();
            }
            release.countDown();
            while (runs.get(20 + round % 150) == 0 && !caller.isDone()) { // part-way
                assertTrue(System.nanoTime() < deadline, "round " + round + ": the batch never got part-way");
                Thread.onSpinWait();
            }
            if (terminate) {
                List<Thread> threads = pool.workers().stream().map(WorkerThreads::threadOf).toList();
                pool.terminate();
                try {
                    assertEquals(200, caller.get(60, TimeUnit.SECONDS).size());
                } catch (ExecutionException stopped) {
                    assertInstanceOf(CancellationException.class, stopped.getCause(), "round " + round);
                }
                for (Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(60));
                    assertFalse(thread.isAlive(), "round " + round + ": " + thread + " still runs");
                }
                for (int i = 0; i < 200; i++) {
                    assertTrue(runs.get(i) <= 1, "round " + round + ": task " + i + " ran " + runs.get(i) + " times");
                }
            } else {
                pool.close();
                List<Integer> results = caller.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < 200; i++) {
                    assertEquals(i, results.get(i));
                    assertEquals(1, runs.get(i), "round " + round + ": task " + i);
                }
            }
        }
    }

    /** A task of a batch that overflows its stack fails alone, with the death of the thread that took it; the rest run once. */
    @Test
    void aTaskThatKillsItsThreadFailsAloneAndTheBatchGoesOn() throws Exception {
        try (Pool pool = workers(2)) {
            for (int round = 0; round < Stress.scaled(40); round++) {
                AtomicIntegerArray runs = new AtomicIntegerArray(60);
                List<Task<Integer>> batch = new ArrayList<>();
                int dies = 5 + round % 40;
                for (int i = 0; i < 60; i++) {
                    batch.add(i == dies ? recurse.call(0) : markAfterWork.call(runs, i));
                }
                TaskFailedException failed = assertThrows(TaskFailedException.class, () -> pool.runAll(batch));
                assertInstanceOf(WorkerDiedException.class, failed.getCause(), failed.toString());
                for (int i = 0; i < 60; i++) {
                    if (runs.get(i) != (i == dies ? 0 : 1)) {
                        fail("round " + round + ": task " + i + " ran " + runs.get(i) + " times");
                    }
                }
            }
        }
    }
}
