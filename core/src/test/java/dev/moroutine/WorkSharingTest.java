package dev.moroutine;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.leastBusy;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static dev.moroutine.Moroutine.workers;
import static dev.moroutine.testing.WorkerThreads.threadOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Work sharing: with a built-in balancer, a task that waits behind a running one at its worker may
 * be run by an idle worker of the pool instead, exactly once; assigned tasks, tasks placed by a
 * user's balancer and tasks with stream endpoints stay where they were put.
 */
@Timeout(120)
class WorkSharingTest {

    /** Opens a gate when the test ends, before its pool closes (which waits for the gated tasks). */
    @FunctionalInterface
    interface Release extends AutoCloseable {
        @Override
        void close();
    }

    static final Mo0<Thread> whereAmI = mo(Thread::currentThread);
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, gate) -> {
        started.countDown();
        return gate.await(60, TimeUnit.SECONDS);
    });
    /** Waits for {@code gate}; says whether an interrupt ended the wait. */
    static final Mo3<CountDownLatch, CountDownLatch, AtomicBoolean, Thread> awaitInterrupt = mo((started, gate, interrupted) -> {
        started.countDown();
        try {
            gate.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted.set(true);
        }
        return Thread.currentThread();
    });
    static final Mo3<AtomicIntegerArray, Integer, Integer, Integer> markAfterWork = mo((runs, i, micros) -> {
        long end = System.nanoTime() + micros * 1_000L;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        runs.incrementAndGet(i);
        return i;
    });

    /** Without sharing, half of these would wait for the blocked worker until its gate opens. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"roundRobin", "leastBusy"})
    void tasksWaitingBehindABlockedWorkerRunOnTheIdleOne(String balancer) throws Exception {
        PoolOptions options = PoolOptions.defaults().withBalancer(balancer.equals("leastBusy") ? leastBusy() : roundRobin());
        CountDownLatch gate = new CountDownLatch(1);
        try (Pool pool = workers(2, options); Release _ = gate::countDown) {
            WorkerHandle blocked = pool.workers().get(0);
            WorkerHandle idle = pool.workers().get(1);
            CompletableFuture<Boolean> blocker = block(pool, blocked, gate);
            assertTwentyTasksRunOn(pool, idle);
            assertFalse(blocker.isDone(), "the blocked worker is still in its task");
            gate.countDown();
            assertTrue(blocker.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void anAssignedTaskWaitsForItsOwnWorker() throws Exception {
        assertStaysWithTheBlockedWorker(PoolOptions.defaults(), true);
    }

    @Test
    void aTaskPlacedByAUsersBalancerWaitsWhereItWasPut() throws Exception {
        Balancer first = (workers, task) -> workers.getFirst();
        assertStaysWithTheBlockedWorker(PoolOptions.defaults().withBalancer(first), false);
    }

    /**
     * Sends a task to worker 0, which is blocked, then has worker 1 go idle again and again (each
     * time it looks for work at worker 0): the task must wait for worker 0 all the same.
     */
    private static void assertStaysWithTheBlockedWorker(PoolOptions options, boolean assigned) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (Pool pool = workers(2, options); Release _ = gate::countDown) {
            WorkerHandle blocked = pool.workers().get(0);
            WorkerHandle idle = pool.workers().get(1);
            CompletableFuture<Boolean> blocker = block(pool, blocked, gate);
            CompletableFuture<Thread> waiting = pool.submit(assigned ? assign(blocked, whereAmI.call()) : whereAmI.call());
            for (int i = 0; i < 100; i++) {
                assertSame(threadOf(idle), pool.run(assign(idle, whereAmI.call())));
            }
            assertFalse(waiting.isDone(), "the task waits for its own worker");
            gate.countDown();
            assertTrue(blocker.get(30, TimeUnit.SECONDS));
            assertSame(threadOf(blocked), waiting.get(30, TimeUnit.SECONDS));
        }
    }

    /**
     * A worker that parked while nobody had work is woken by a task sent to its busy sibling, and
     * takes it: without that wake it would sleep while the task waits for the sibling's long task.
     */
    @RepeatedTest(20)
    void anIdleWorkerParkedBeforeItsSiblingGotBusyTakesTheTaskWaitingThere() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (Pool pool = workers(2); Release _ = gate::countDown) {
            WorkerHandle blocked = pool.workers().get(0);
            WorkerHandle idle = pool.workers().get(1);
            awaitParked(threadOf(idle));
            CompletableFuture<Boolean> blocker = block(pool, blocked, gate);
            turnRoundRobinTo(pool, blocked);
            assertSame(threadOf(idle), pool.submit(whereAmI.call()).get(30, TimeUnit.SECONDS));
            assertFalse(blocker.isDone());
        }
    }

    /**
     * A pool whose balancer is the user's shares no work, so its idle worker has nothing to look
     * for at a busy sibling: it parks until woken, rather than looking again every millisecond.
     */
    @Test
    void anIdleWorkerOfAPoolThatSharesNothingParksUntilWoken() throws Exception {
        Balancer first = (all, task) -> all.getFirst();
        CountDownLatch gate = new CountDownLatch(1);
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(first)); Release _ = gate::countDown) {
            WorkerHandle busy = pool.workers().get(0);
            WorkerHandle idle = pool.workers().get(1);
            block(pool, busy, gate);
            assertSame(threadOf(idle), pool.run(assign(idle, whereAmI.call())));
            awaitParked(threadOf(idle));
        }
    }

    /**
     * A pool whose workers came and went (indices 1 and 2 for two workers): the idle worker takes
     * tasks waiting behind the blocked one as in any pool.
     */
    @Test
    void tasksWaitingAtAWorkerWithAnIndexPastThePoolSizeAreTaken() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (WorkerPool pool = new WorkerPool(2, roundRobin(), null, null, 16, null, WorkerPool.THREADS);
                Release _ = gate::countDown) {
            Worker gone = (Worker) pool.workers().get(0);
            assertTrue(pool.removeWorker(gone));
            gone.forceStop("it left");
            assertTrue(gone.awaitStopped(10, TimeUnit.SECONDS));
            Worker added = pool.addWorker(WorkerPool.THREADS);
            assertEquals(2, added.index());
            WorkerHandle idle = pool.workers().get(0);
            assertEquals(1, idle.index());
            CompletableFuture<Boolean> blocker = block(pool, added, gate);
            assertTwentyTasksRunOn(pool, idle);
            assertFalse(blocker.isDone());
        }
    }

    /** Sends twenty unassigned tasks to {@code pool} and checks that each ran on {@code idle}'s thread. */
    private static void assertTwentyTasksRunOn(Pool pool, WorkerHandle idle) throws Exception {
        List<CompletableFuture<Thread>> sent = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sent.add(pool.submit(whereAmI.call()));
        }
        for (CompletableFuture<Thread> task : sent) {
            assertSame(threadOf(idle), task.get(30, TimeUnit.SECONDS), "every task ran on the idle worker");
        }
    }

    static final Mo1<Integer, Integer> recurse = mo(WorkSharingTest::deep);

    private static int deep(int n) {
        return n == Integer.MIN_VALUE ? n : deep(n + 1) + 1;
    }

    /**
     * A task sent to a blocked worker runs on its idle sibling: whoever sees it complete sees the
     * owner's activeCount without it, also when it overflows its stack and kills the sibling's
     * thread (which is replaced, and takes tasks again).
     */
    @Test
    void aTakenTaskIsCountedAtItsOwnerAlsoWhenItKillsTheTaker() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (Pool pool = workers(2); Release _ = gate::countDown) {
            WorkerHandle blocked = pool.workers().get(0);
            WorkerHandle idle = pool.workers().get(1);
            CompletableFuture<Boolean> blocker = block(pool, blocked, gate);
            for (int round = 0; round < 10; round++) {
                turnRoundRobinTo(pool, blocked);
                assertSame(threadOf(idle), pool.submit(whereAmI.call()).get(30, TimeUnit.SECONDS));
                assertEquals(1, blocked.activeCount(), "round " + round);
                Thread taker = threadOf(idle);
                turnRoundRobinTo(pool, blocked);
                CompletableFuture<Integer> dying = pool.submit(recurse.call(0));
                ExecutionException failed = assertThrows(ExecutionException.class, () -> dying.get(30, TimeUnit.SECONDS));
                WorkerDiedException died = assertInstanceOf(WorkerDiedException.class, failed.getCause());
                assertTrue(died.getMessage().startsWith(taker.getName() + " died"), died.getMessage());
                assertEquals(1, blocked.activeCount(), "round " + round);
                assertEquals(0, idle.activeCount(), "round " + round);
                assertNotSame(taker, threadOf(idle));
            }
            assertFalse(blocker.isDone());
        }
    }

    /** Asks a two-worker pool's round robin for workers until its next turn is {@code next}'s. */
    private static void turnRoundRobinTo(Pool pool, WorkerHandle next) {
        while (pool.workerFor(whereAmI.call()) == next) {
            // each question takes a turn; once it answers the other worker, the next turn is next's
        }
    }

    /** Has {@code worker} run a task that waits for {@code gate}, once it has started. */
    private static CompletableFuture<Boolean> block(Pool pool, WorkerHandle worker, CountDownLatch gate) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> blocker = pool.submit(assign(worker, hold.call(started, gate)));
        assertTrue(started.await(30, TimeUnit.SECONDS), "the blocking task started");
        return blocker;
    }

    /** Waits until {@code thread} parks with no timeout: a thread's state has nothing to wait on, so this polls it. */
    private static void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() < deadline, thread + " never parked");
            Thread.yield();
        }
    }

    /** The worker that took a task is the one a cancel interrupts: not the blocked worker it was sent to. */
    @RepeatedTest(20)
    void cancellingATakenTaskInterruptsTheWorkerThatRunsIt() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (Pool pool = workers(2); Release _ = gate::countDown) {
            WorkerHandle blocked = pool.workers().get(0);
            WorkerHandle idle = pool.workers().get(1);
            AtomicBoolean blockerInterrupted = new AtomicBoolean();
            CountDownLatch blockerStarted = new CountDownLatch(1);
            CompletableFuture<Thread> blocker = pool.submit(assign(blocked,
                    awaitInterrupt.call(blockerStarted, gate, blockerInterrupted)));
            assertTrue(blockerStarted.await(30, TimeUnit.SECONDS));
            turnRoundRobinTo(pool, blocked);
            AtomicBoolean interrupted = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Thread> taken = pool.submit(awaitInterrupt.call(started, new CountDownLatch(1), interrupted));
            assertTrue(started.await(30, TimeUnit.SECONDS), "the idle worker took the task");
            assertTrue(taken.cancel(true));
            assertSame(threadOf(idle), pool.run(assign(idle, whereAmI.call())), "the taken task's run has ended");
            assertTrue(interrupted.get(), "the task was interrupted on the worker that ran it");
            assertFalse(blockerInterrupted.get(), "the blocked worker's own task was not interrupted");
            gate.countDown();
            assertSame(threadOf(blocked), blocker.get(30, TimeUnit.SECONDS));
            assertFalse(blockerInterrupted.get());
        }
    }

    /** Tasks of mixed cost, some cancelled: each one that was not cancelled ran exactly once, none twice. */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3, 4})
    @Timeout(300)
    void everyTaskRunsAtMostOnceAndExactlyOnceUnlessCancelled(int size) throws Exception {
        int rounds = Stress.scaled(40);
        int perRound = 500;
        SplittableRandom random = new SplittableRandom(size);
        try (Pool pool = workers(size)) {
            for (int round = 0; round < rounds; round++) {
                AtomicIntegerArray runs = new AtomicIntegerArray(perRound);
                List<CompletableFuture<Integer>> sent = new ArrayList<>();
                boolean[] cancelled = new boolean[perRound];
                for (int i = 0; i < perRound; i++) {
                    int micros = random.nextInt(8) == 0 ? random.nextInt(200) : random.nextInt(3);
                    sent.add(pool.submit(markAfterWork.call(runs, i, micros)));
                    if (random.nextInt(16) == 0) {
                        cancelled[i] = sent.get(random.nextInt(i + 1)).cancel(random.nextBoolean());
                    }
                }
                for (int i = 0; i < perRound; i++) {
                    CompletableFuture<Integer> task = sent.get(i);
                    if (!task.isCancelled()) {
                        assertEquals(i, task.get(60, TimeUnit.SECONDS));
                    } else {
                        assertThrows(CancellationException.class, task::join);
                    }
                }
                // A cancelled task that was running still finishes its run: wait for the workers to be idle.
                for (WorkerHandle worker : pool.workers()) {
                    pool.run(assign(worker, whereAmI.call()));
                }
                for (int i = 0; i < perRound; i++) {
                    int ran = runs.get(i);
                    if (ran > 1 || (ran == 0 && !sent.get(i).isCancelled())) {
                        fail("round " + round + ": task " + i + " ran " + ran + " times (cancelled: " + sent.get(i).isCancelled() + ")");
                    }
                }
            }
        }
    }
}
