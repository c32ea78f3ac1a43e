package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.ThreadWorker;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.testing.NoLeakedWorkers;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Workers that come and go (a cluster's members): what balancers, assignments and close() see. */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(60)
class WorkerPoolMembershipTest {

    static final Mo1<Integer, Integer> twice = mo(x -> 2 * x);
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, gate) -> {
        started.countDown();
        return gate.await(30, TimeUnit.SECONDS);
    });

    /**
     * A worker that went idle while its pool shared nothing (it was alone, as a pool's first worker is
     * while the others start) is still woken to take a task waiting at a blocked sibling added later.
     */
    @Test
    void aWorkerIdleBeforeItHadSiblingsTakesWorkFromABlockedOne() throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        try (WorkerPool pool = pool(1)) {
            try {
                ThreadWorker first = (ThreadWorker) pool.workers().get(0);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (first.thread() == null || first.thread().getState() != Thread.State.WAITING) {
                    assertTrue(System.nanoTime() < deadline, "the first worker never parked");
                    Thread.yield(); // a thread's state has nothing to wait on: look again until the deadline
                }
                Worker added = pool.addWorker(WorkerPool.THREADS);
                CountDownLatch blocking = new CountDownLatch(1);
                pool.submit(assign(added, hold.call(blocking, gate)));
                assertTrue(blocking.await(30, TimeUnit.SECONDS), "the added worker is blocked");
                while (pool.workerFor(twice.call(0)) == added) {
                    // each question takes a turn; once it answers the first worker, the next turn is the added one's
                }
                CountDownLatch started = new CountDownLatch(1);
                pool.submit(hold.call(started, new CountDownLatch(0)));
                assertTrue(started.await(10, TimeUnit.SECONDS), "the first worker took the task waiting at its blocked sibling");
            } finally {
                gate.countDown(); // before the pool closes: its close waits for the gated task
            }
        }
    }

    private static WorkerPool pool(int size) {
        return new WorkerPool(size, roundRobin(), null, null, 16, null, WorkerPool.THREADS);
    }

    @Test
    void anAddedWorkerGetsTheNextIndexAndTasks() {
        try (WorkerPool pool = pool(2)) {
            Worker added = pool.addWorker(WorkerPool.THREADS);
            assertEquals(2, added.index());
            assertEquals(3, pool.workers().size());
            assertSame(added, pool.workers().get(2));
            assertEquals(14, pool.run(assign(added, twice.call(7))));
            int onAdded = 0;
            for (int i = 0; i < 30; i++) {
                if (pool.workerFor(twice.call(i)) == added) {
                    onAdded++;
                }
            }
            assertEquals(10, onAdded, "round robin over the three workers");
        }
    }

    /** Round robin over one worker skips its counter; once a second worker comes, the turns alternate exactly. */
    @Test
    void roundRobinOverOneWorkerThenTwoAlternates() {
        try (WorkerPool pool = pool(1)) {
            WorkerHandle only = pool.workers().get(0);
            for (int i = 0; i < 3; i++) {
                assertSame(only, pool.workerFor(twice.call(i)));
                assertEquals(2 * i, pool.run(twice.call(i)));
            }
            Worker added = pool.addWorker(WorkerPool.THREADS);
            WorkerHandle first = pool.workerFor(twice.call(0));
            for (int i = 1; i < 8; i++) {
                assertSame(i % 2 == 0 ? first : (first == only ? added : only), pool.workerFor(twice.call(i)), "turn " + i);
            }
        }
    }

    @Test
    void aRemovedWorkerIsNoLongerChosenAndIndicesAreNotReused() throws InterruptedException {
        try (WorkerPool pool = pool(3)) {
            Worker leaving = (Worker) pool.workers().get(1);
            assertTrue(pool.removeWorker(leaving));
            assertFalse(pool.removeWorker(leaving));
            leaving.forceStop("it left");
            assertTrue(leaving.awaitStopped(10, TimeUnit.SECONDS));
            List<WorkerHandle> left = pool.workers();
            assertEquals(2, left.size());
            for (int i = 0; i < 20; i++) {
                assertNotSame(leaving, pool.workerFor(twice.call(i)));
                assertEquals(2 * i, pool.run(twice.call(i)));
            }
            RejectedExecutionException refused = assertThrows(RejectedExecutionException.class,
                    () -> pool.run(assign(leaving, twice.call(1))));
            assertTrue(refused.getMessage().startsWith("it left"), refused.getMessage());
            assertEquals(3, pool.addWorker(WorkerPool.THREADS).index());
        }
    }

    @Test
    void aPoolWithNoWorkersLeftRefusesWithAMessage() throws InterruptedException {
        try (WorkerPool pool = pool(1)) {
            Worker only = (Worker) pool.workers().get(0);
            pool.removeWorker(only);
            only.forceStop("it left");
            assertTrue(only.awaitStopped(10, TimeUnit.SECONDS));
            RejectedExecutionException refused = assertThrows(RejectedExecutionException.class, () -> pool.run(twice.call(1)));
            assertTrue(refused.getMessage().contains("has no workers now"), refused.getMessage());
        }
    }

    @Test
    void aClosedPoolTakesNoNewWorker() {
        WorkerPool pool = pool(1);
        pool.close();
        assertThrows(RejectedExecutionException.class, () -> pool.addWorker(WorkerPool.THREADS));
        assertEquals(1, pool.workers().size());
    }
}
