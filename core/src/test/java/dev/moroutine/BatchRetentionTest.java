package dev.moroutine;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A finished batch's results are not kept reachable by the workers: ThreadWorker's class comment
 * bounds that to "a busy worker may keep [SHARED_SLOTS = 64] finished results reachable, an idle one
 * none", and a worker keeps the batch of its last batch task ({@code inBatch}), as each execution keeps
 * its batch. From the review of 9bfc14d, where the batch kept every execution, and so every result.
 */
@Timeout(60)
class BatchRetentionTest {

    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, release) -> {
        started.countDown();
        return release.await(30, TimeUnit.SECONDS);
    });
    /** A fresh result of about 64 KB, watched through {@code watch}. */
    static final Mo2<AtomicReferenceArray<WeakReference<Object>>, Integer, Object> make = mo((watch, i) -> {
        Object result = new long[8192];
        watch.set(i, new WeakReference<>(result));
        return result;
    });

    @Test
    void aBusyWorkerDoesNotKeepAFinishedBatchsResults() throws Exception {
        int n = 400; // 200 a worker: far more than the 64 shared slots
        AtomicReferenceArray<WeakReference<Object>> watch = new AtomicReferenceArray<>(n);
        CountDownLatch release1 = new CountDownLatch(1);
        CountDownLatch release2 = new CountDownLatch(1);
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(roundRobin()))) {
            try {
                CountDownLatch holding = new CountDownLatch(2);
                for (WorkerHandle worker : pool.workers()) {
                    pool.submit(assign(worker, hold.call(holding, release1)));
                }
                assertTrue(holding.await(30, TimeUnit.SECONDS));
                List<Task<Object>> batch = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    batch.add(make.call(watch, i));
                }
                CompletableFuture<Integer> caller = CompletableFuture.supplyAsync(() -> pool.runAll(batch).size(),
                        Thread::startVirtualThread);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (pool.workers().stream().mapToInt(WorkerHandle::activeCount).sum() < 2 + n) {
                    assertTrue(System.nanoTime() < deadline, "the batch was never all queued");
                    Thread.onSpinWait();
                }
                // Queued behind the batch: each worker goes from its last batch task to this one without parking.
                CountDownLatch busy = new CountDownLatch(2);
                for (WorkerHandle worker : pool.workers()) {
                    pool.submit(assign(worker, hold.call(busy, release2)));
                }
                release1.countDown();
                assertEquals(n, caller.get(30, TimeUnit.SECONDS));
                assertTrue(busy.await(30, TimeUnit.SECONDS));
                // The caller has dropped every result; the workers are busy (not parked) in other tasks.
                for (int i = 0; i < n; i++) {
                    assertTrue(watch.get(i) != null);
                }
                int kept = n;
                long gcDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (System.nanoTime() < gcDeadline && kept > 2 * 64) {
                    System.gc();
                    kept = 0;
                    for (int i = 0; i < n; i++) {
                        kept += watch.get(i).get() != null ? 1 : 0;
                    }
                }
                assertTrue(kept <= 2 * 64, kept + " of the " + n + " results of a finished batch are still reachable"
                        + " from 2 busy workers (at most 64 each expected)");
            } finally {
                release1.countDown();
                release2.countDown();
            }
        }
    }
}
