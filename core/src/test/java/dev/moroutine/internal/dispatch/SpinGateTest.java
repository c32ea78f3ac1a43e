package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The gate that keeps a pool's idle workers from holding every core in spin loops. */
@Timeout(120)
class SpinGateTest {

    @Test
    void letsThroughAsManySpinnersAsItsLimitThenOneMoreForEachThatLeaves() {
        SpinGate gate = new SpinGate(2);
        assertTrue(gate.enter());
        assertTrue(gate.enter());
        assertFalse(gate.enter(), "a third spinner while two spin");
        gate.leave();
        assertTrue(gate.enter(), "the place one left");
        assertFalse(gate.enter());
    }

    @Test
    void guardsOnlyPoolsWithMoreWorkersThanItLetsThrough() {
        SpinGate gate = new SpinGate(2);
        assertFalse(gate.guards(1));
        assertFalse(gate.guards(2));
        assertTrue(gate.guards(3));
        assertEquals(Math.max(1, Runtime.getRuntime().availableProcessors() - 1), SpinGate.LIMIT);
    }

    @Test
    void concurrentSpinnersNeverExceedTheLimitAndAllLeave() throws Exception {
        int limit = 2;
        int threads = 4;
        int rounds = 200_000;
        for (int iteration = 0; iteration < 5; iteration++) {
            SpinGate gate = new SpinGate(limit);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            AtomicInteger entered = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        go.await();
                        for (int r = 0; r < rounds; r++) {
                            if (gate.enter()) {
                                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                entered.incrementAndGet();
                                inside.decrementAndGet();
                                gate.leave();
                            }
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertTrue(most.get() <= limit, "at most " + limit + " inside at once, saw " + most.get());
            assertTrue(entered.get() > 0);
            for (int i = 0; i < limit; i++) {
                assertTrue(gate.enter(), "every spinner left: place " + i + " is free");
            }
            assertFalse(gate.enter());
        }
    }

    private static boolean allParked() {
        List<Thread> gated = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("test-gated-")).toList();
        return gated.size() == 3 && gated.stream().allMatch(t -> t.getState() == Thread.State.WAITING);
    }

    /** Workers kept from spinning wait yielding, then park: every task still runs once, at whichever worker it was sent to. */
    @Test
    void aPoolWhoseGateLetsOneSpinRunsEveryTaskOnceAndWakesItsParkedWorkers() throws Exception {
        SpinGate gate = new SpinGate(1);
        List<ThreadWorker> workers = TestGroup.startWorkers("test-gated-", 3, false, gate);
        assertTrue(gate.guards(workers.size()));
        try {
            List<Integer> runs = Collections.synchronizedList(new ArrayList<>());
            List<ThreadWorkerLincheckTest.Counted> tasks = new ArrayList<>();
            int id = 0;
            for (int i = 0; i < 30_000; i++, id++) { // back to back: one worker spins, the others yield between tasks
                ThreadWorkerLincheckTest.Counted task = new ThreadWorkerLincheckTest.Counted(id, runs);
                tasks.add(task);
                workers.get(i % 3).dispatch(task.execution);
            }
            for (int round = 0; round < 200; round++) { // one at a time to each: the gated ones have parked meanwhile
                for (ThreadWorker worker : workers) {
                    ThreadWorkerLincheckTest.Counted task = new ThreadWorkerLincheckTest.Counted(id++, runs);
                    tasks.add(task);
                    worker.dispatch(task.execution);
                    assertEquals(id - 1, task.execution.get(10, TimeUnit.SECONDS));
                }
            }
            for (ThreadWorkerLincheckTest.Counted task : tasks) {
                task.execution.get(30, TimeUnit.SECONDS);
                assertEquals(1, task.runCount.get(), task + " ran once");
            }
            assertEquals(tasks.size(), runs.size());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!allParked()) { // each ends its wait in a park: then none is counted as spinning
                assertTrue(System.nanoTime() < deadline, "the idle workers parked within 30 s");
                LockSupport.parkNanos(1_000_000);
            }
            assertTrue(gate.enter(), "no worker is left counted as spinning once all have parked");
        } finally {
            for (ThreadWorker worker : workers) {
                worker.forceStop("test over");
            }
            for (ThreadWorker worker : workers) {
                assertTrue(worker.awaitStopped(30, TimeUnit.SECONDS));
            }
        }
    }
}
