package dev.moroutine;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.leastBusy;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three callers sending batches at once beside a stream of single tasks, on pools of two and three
 * workers with either built-in balancer: some tasks of a batch are assigned to a worker, and in one
 * caller's batches a task waits for a later one of its batch, which a free thread must find. Every
 * task runs exactly once, each batch's results come back in order, and every worker's
 * {@code activeCount()} comes back to zero (a task taken from a batch by a free thread is counted at
 * the worker it was placed on). From the review of a2d4a67.
 */
@Timeout(120)
class BatchFreeThreadStressTest {

    /** Spins the given microseconds, then counts run {@code i}: {@link WorkSharingTest}'s. */
    static final Mo3<AtomicIntegerArray, Integer, Integer, Integer> counted = WorkSharingTest.markAfterWork;
    static final Mo3<AtomicIntegerArray, Integer, CountDownLatch, Integer> awaits = mo((runs, i, g) -> {
        runs.incrementAndGet(i);
        return g.await(20, TimeUnit.SECONDS) ? i : -1;
    });
    static final Mo3<AtomicIntegerArray, Integer, CountDownLatch, Integer> opens = mo((runs, i, g) -> {
        runs.incrementAndGet(i);
        g.countDown();
        return i;
    });

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rr2", "lb2", "rr3", "lb3"})
    void everyTaskRunsOnceAndTheCountsComeBackToZero(String shape) throws Exception {
        int size = shape.endsWith("3") ? 3 : 2;
        PoolOptions options = PoolOptions.defaults().withBalancer(shape.startsWith("rr") ? roundRobin() : leastBusy());
        try (Pool pool = workers(size, options)) {
            int callers = 3;
            int rounds = Stress.scaled(3_000);
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                int caller = c;
                running.add(CompletableFuture.runAsync(() -> {
                    SplittableRandom random = new SplittableRandom(caller * 31 + size);
                    for (int r = 0; r < rounds; r++) {
                        int n = 2 + random.nextInt(6);
                        AtomicIntegerArray runs = new AtomicIntegerArray(n);
                        CountDownLatch g = new CountDownLatch(1);
                        int waiter = caller == 0 ? random.nextInt(n - 1) : -1; // one waiting batch at a time
                        int opener = caller == 0 ? waiter + 1 + random.nextInt(n - 1 - waiter) : -1;
                        List<Task<Integer>> batch = new ArrayList<>();
                        for (int i = 0; i < n; i++) {
                            Task<Integer> t = i == waiter ? awaits.call(runs, i, g)
                                    : i == opener ? opens.call(runs, i, g)
                                    : counted.call(runs, i, random.nextInt(4) == 0 ? 30 : 0);
                            if (i != waiter && i != opener && random.nextInt(5) == 0) {
                                t = assign(pool.workers().get(random.nextInt(size)), t);
                            }
                            batch.add(t);
                        }
                        List<Integer> results = pool.runAll(batch);
                        for (int i = 0; i < n; i++) {
                            assertEquals(i, results.get(i), "caller " + caller + " round " + r);
                            assertEquals(1, runs.get(i), "caller " + caller + " round " + r + " task " + i);
                        }
                    }
                }, Thread::startVirtualThread));
            }
            AtomicIntegerArray singleRuns = new AtomicIntegerArray(20_000);
            running.add(CompletableFuture.runAsync(() -> {
                List<CompletableFuture<Integer>> sent = new ArrayList<>();
                for (int i = 0; i < singleRuns.length(); i++) {
                    sent.add(pool.submit(counted.call(singleRuns, i, 0)));
                    if (sent.size() == 32) {
                        sent.removeFirst().join();
                    }
                }
                sent.forEach(CompletableFuture::join);
                for (int i = 0; i < singleRuns.length(); i++) {
                    assertEquals(1, singleRuns.get(i), "single " + i);
                }
            }, Thread::startVirtualThread));
            for (CompletableFuture<Void> f : running) {
                f.get(100, TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            for (WorkerHandle w : pool.workers()) {
                while (w.activeCount() != 0) {
                    assertTrue(System.nanoTime() < deadline, w + " counts " + w.activeCount() + " with nothing left");
                    Thread.onSpinWait();
                }
            }
        }
    }
}
