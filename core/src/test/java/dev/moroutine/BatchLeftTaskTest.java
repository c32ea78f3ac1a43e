package dev.moroutine;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.leastBusy;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task of a batch left at the head of a busy worker's queue, behind an older task of the batch that
 * waits for it, is run by the free thread. Batch [E, G]: E waits for G. Round robin puts E on worker
 * T and G on worker S. S's thread comes to G and runs the batch's older E (from T) instead, leaving G
 * at the head of its queue. While S is blocked in E, and S's shared slot for G is overwritten by later
 * shared tasks (64 slots), so that no idle sibling finds G there, the free thread T still takes G: it
 * came to E in its queue, a task of the batch, and takes the batch's next once its queue is empty.
 * From the review of 9bfc14d, where G was kept aside and T idled with G never run, until E's own
 * timeout.
 */
@Timeout(90)
class BatchLeftTaskTest {

    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, release) -> {
        started.countDown();
        return release.await(30, TimeUnit.SECONDS);
    });
    /** E: waits for G. */
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> awaitG = mo((started, g) -> {
        started.countDown();
        return g.await(30, TimeUnit.SECONDS);
    });
    /** G. */
    static final Mo1<CountDownLatch, Boolean> openG = mo(g -> {
        g.countDown();
        return true;
    });
    static final Mo1<Integer, Integer> echo = mo(i -> i);

    @Test
    void aFreeWorkerRunsTheTaskABusyOneLeftForAnOlderOne() throws Exception {
        CountDownLatch releaseT = new CountDownLatch(1);
        CountDownLatch releaseS = new CountDownLatch(1);
        CountDownLatch g = new CountDownLatch(1);
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(roundRobin()))) {
            try {
                WorkerHandle s = pool.workerFor(echo.call(-1)); // takes one turn: the batch's G goes here, E to the other
                WorkerHandle t = pool.workers().get(0) == s ? pool.workers().get(1) : pool.workers().get(0);
                CountDownLatch holding = new CountDownLatch(2);
                pool.submit(assign(t, hold.call(holding, releaseT)));
                pool.submit(assign(s, hold.call(holding, releaseS)));
                assertTrue(holding.await(30, TimeUnit.SECONDS));
                CountDownLatch eStarted = new CountDownLatch(1);
                List<Task<Boolean>> batch = List.of(awaitG.call(eStarted, g), openG.call(g));
                CompletableFuture<List<Boolean>> caller = CompletableFuture.supplyAsync(() -> pool.runAll(batch),
                        Thread::startVirtualThread);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (t.activeCount() < 2 || s.activeCount() < 2) {
                    assertTrue(System.nanoTime() < deadline, "the batch was never all queued");
                    Thread.onSpinWait();
                }
                // 65 shared tasks to each worker, queued behind the batch: at S they take G's shared slot too.
                List<CompletableFuture<Integer>> others = new ArrayList<>();
                for (int i = 0; i < 130; i++) {
                    others.add(pool.submit(echo.call(i)));
                }
                while (t.activeCount() < 2 + 65 || s.activeCount() < 2 + 65) {
                    assertTrue(System.nanoTime() < deadline, "the others were never all queued");
                    Thread.onSpinWait();
                }
                releaseS.countDown(); // S takes E (the commit) or G (before it)
                while (eStarted.getCount() != 0 && g.getCount() != 0) {
                    assertTrue(System.nanoTime() < deadline, "S took neither");
                    Thread.onSpinWait();
                }
                releaseT.countDown();
                assertTrue(g.await(10, TimeUnit.SECONDS), "G never ran, though T has been free for 10 s: S left it"
                        + " (in no queue, its shared slot overwritten) while blocked in E, which waits for G");
                assertEquals(List.of(true, true), caller.get(30, TimeUnit.SECONDS));
                for (int i = 0; i < 130; i++) {
                    assertEquals(i, others.get(i).get(30, TimeUnit.SECONDS));
                }
            } finally {
                releaseT.countDown();
                releaseS.countDown();
            }
        }
    }

    /**
     * Batch [E, G], both placed on worker T (least busy: S has a long queue). T's thread takes E, the
     * batch's oldest, and G waits at the head of T's queue, behind it. More than 64 shared tasks are
     * then placed on T, so G's shared slot is overwritten. S's thread, once free, took no task of the
     * batch; it still finds G, the batch's oldest task nobody has taken, though no slot holds it, and
     * runs it while E waits. From the review of 09a0fba: S looked only at the batch of a task it took,
     * and G stayed until E gave up.
     */
    @Test
    void aFreeWorkerRunsTheTaskLeftBehindTheBatchsOlderOneOnItsOwnWorker() throws Exception {
        CountDownLatch releaseT = new CountDownLatch(1);
        CountDownLatch releaseS = new CountDownLatch(1);
        CountDownLatch g = new CountDownLatch(1);
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(leastBusy()))) {
            try {
                WorkerHandle t = pool.workers().get(0);
                WorkerHandle s = pool.workers().get(1);
                CountDownLatch holding = new CountDownLatch(2);
                pool.submit(assign(t, hold.call(holding, releaseT)));
                pool.submit(assign(s, hold.call(holding, releaseS)));
                assertTrue(holding.await(30, TimeUnit.SECONDS));
                List<CompletableFuture<Integer>> others = new ArrayList<>();
                for (int i = 0; i < 300; i++) { // S busy on paper: the balancer places on T
                    others.add(pool.submit(assign(s, echo.call(i))));
                }
                CountDownLatch eStarted = new CountDownLatch(1);
                List<Task<Boolean>> batch = List.of(awaitG.call(eStarted, g), openG.call(g));
                CompletableFuture<List<Boolean>> caller = CompletableFuture.supplyAsync(() -> pool.runAll(batch),
                        Thread::startVirtualThread);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (t.activeCount() < 3) {
                    assertTrue(System.nanoTime() < deadline, "the batch was never queued at T");
                    Thread.onSpinWait();
                }
                assertEquals(301, s.activeCount(), "the batch went to T only");
                // 100 shared tasks behind G at T (S has 301): they take G's shared slot.
                for (int i = 0; i < 100; i++) {
                    others.add(pool.submit(echo.call(i)));
                }
                assertEquals(3 + 100, t.activeCount(), "the shared tasks went to T");
                releaseT.countDown(); // T takes E, the batch's oldest; G waits at the head of its queue
                assertTrue(eStarted.await(30, TimeUnit.SECONDS));
                releaseS.countDown(); // S runs its own 300, then is free
                for (int i = 0; i < 300; i++) {
                    assertEquals(i, others.get(i).get(30, TimeUnit.SECONDS));
                }
                assertTrue(g.await(10, TimeUnit.SECONDS), "G never ran, though S has been free for 10 s: it waits"
                        + " behind E, which waits for it, on T");
                assertEquals(List.of(true, true), caller.get(30, TimeUnit.SECONDS));
            } finally {
                releaseT.countDown();
                releaseS.countDown();
                g.countDown();
            }
        }
    }
}
