package dev.moroutine;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StressTest {

    static final Mo2<AtomicIntegerArray, Integer, Integer> mark = mo((runs, i) -> {
        runs.incrementAndGet(i);
        return i;
    });
    static final Mo1<Integer, Long> square = mo(x -> (long) x * x);
    static final Mo0<Thread> whereAmI = mo(Thread::currentThread);
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, gate) -> {
        started.countDown();
        return gate.await(30, TimeUnit.SECONDS);
    });

    /** Every one of a million tasks, sent by two threads at once, runs exactly once and completes with its own value. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"roundRobin", "leastBusy"})
    @Timeout(300)
    void aMillionTasksOverTwoWorkersRunExactlyOnce(String balancer) throws Exception {
        int total = Stress.scaled(1_000_000);
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        PoolOptions options = PoolOptions.defaults()
                .withBalancer(balancer.equals("leastBusy") ? leastBusy() : roundRobin());
        try (Pool pool = workers(2, options); ExecutorService producers = Executors.newFixedThreadPool(2)) {
            List<Future<Long>> sent = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                int first = p;
                sent.add(producers.submit(() -> produce(pool, runs, first, total)));
            }
            long checked = 0;
            for (Future<Long> s : sent) checked += s.get();
            assertEquals(total, checked, "every future completed with its own index");
        }
        for (int i = 0; i < total; i++) {
            if (runs.get(i) != 1) fail("task " + i + " ran " + runs.get(i) + " times");
        }
    }

    /** Sends every other index, keeping up to 4096 in flight, and checks each result. */
    private static long produce(Pool pool, AtomicIntegerArray runs, int first, int total) {
        ArrayDeque<CompletableFuture<Integer>> window = new ArrayDeque<>();
        ArrayDeque<Integer> expected = new ArrayDeque<>();
        long checked = 0;
        for (int i = first; i < total; i += 2) {
            window.add(pool.submit(mark.call(runs, i)));
            expected.add(i);
            if (window.size() == 4096) {
                checked += drain(window, expected, 2048);
            }
        }
        return checked + drain(window, expected, window.size());
    }

    private static long drain(ArrayDeque<CompletableFuture<Integer>> window, ArrayDeque<Integer> expected, int count) {
        for (int k = 0; k < count; k++) {
            assertEquals(expected.poll(), window.poll().join());
        }
        return count;
    }

    /** Ten thousand virtual threads block in join() at once, on a pool and on a dedicated worker; none pins, none is lost. */
    @Test
    @Timeout(120)
    void tenThousandVirtualThreadsJoinAtOnce() throws Exception {
        int threads = 10_000;
        CountDownLatch go = new CountDownLatch(1);
        try (Pool pool = workers(2); ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Long>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int n = i;
                results.add(virtual.submit(() -> {
                    go.await();
                    long viaPool = pool.run(square.call(n));
                    long viaDedicated = square.call(n).join();
                    assertEquals(viaPool, viaDedicated);
                    return viaPool;
                }));
            }
            go.countDown();
            for (int i = 0; i < threads; i++) {
                assertEquals((long) i * i, results.get(i).get(60, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * Round robin places tasks exactly evenly, starting anywhere but favouring no one (where they
     * run, an idle worker may take one from a worker that is not running).
     */
    @Test
    @Timeout(60)
    void roundRobinIsExactlyEven() {
        try (Pool pool = workers(4)) {
            Map<WorkerHandle, Integer> counts = new HashMap<>();
            for (int i = 0; i < 4000; i++) {
                counts.merge(pool.workerFor(whereAmI.call()), 1, Integer::sum);
            }
            for (WorkerHandle w : pool.workers()) assertEquals(1000, counts.get(w), counts.toString());
        }
    }

    /**
     * Least busy with every worker idle is a tie each time; the rotating offset spreads the ties
     * (where the tasks run, an idle worker may take one from a worker that is not running).
     */
    @Test
    @Timeout(60)
    void leastBusyHasNoWorkerZeroBias() {
        try (Pool pool = workers(4, PoolOptions.defaults().withBalancer(leastBusy()))) {
            Map<WorkerHandle, Integer> counts = new HashMap<>();
            for (int i = 0; i < 4000; i++) {
                WorkerHandle chosen = pool.workerFor(whereAmI.call());
                counts.merge(chosen, 1, Integer::sum);
                pool.run(assign(chosen, whereAmI.call())); // as a placed task would, on the worker chosen
            }
            for (WorkerHandle w : pool.workers()) {
                int share = counts.getOrDefault(w, 0);
                assertTrue(share >= 600 && share <= 1400, "each worker should get about 1000 of 4000: " + counts);
            }
        }
    }

    /** Least busy steers around a worker that is stuck on a long task. */
    @Test
    @Timeout(60)
    void leastBusyAvoidsABusyWorker() throws Exception {
        try (Pool pool = workers(3, PoolOptions.defaults().withBalancer(leastBusy()))) {
            WorkerHandle busy = pool.workers().get(0);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            CompletableFuture<Boolean> blocker = pool.submit(assign(busy, hold.call(started, gate)));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            assertEquals(1, busy.activeCount());
            Map<Thread, Integer> counts = countPlacements(pool, 300);
            assertNull(counts.get(threadOf(busy)), "no task should wait behind the busy worker: " + counts);
            gate.countDown();
            assertTrue(blocker.get());
        }
    }

    private static Map<Thread, Integer> countPlacements(Pool pool, int tasks) {
        Map<Thread, Integer> counts = new HashMap<>();
        for (int i = 0; i < tasks; i++) {
            counts.merge(pool.run(whereAmI.call()), 1, Integer::sum);
        }
        return counts;
    }
}
