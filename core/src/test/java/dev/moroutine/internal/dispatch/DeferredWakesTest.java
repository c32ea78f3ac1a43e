package dev.moroutine.internal.dispatch;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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

    /** Seeded batches of 1–8 tasks over two workers, each sent when the workers are parked or on their way there. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void everyTaskOfEveryBatchRuns(long seed) throws Exception {
        Random random = new Random(seed);
        AtomicInteger runs = new AtomicInteger();
        DeferredWakes wakes = new DeferredWakes(); // one for all the batches, as an I/O thread has
        int expected = 0;
        try (Pool pool = Moroutine.workers(2)) {
            for (int round = 0; round < 2_000; round++) {
                if (random.nextBoolean()) {
                    awaitParked(pool);
                }
                int tasks = 1 + random.nextInt(8);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                try {
                    for (int i = 0; i < tasks; i++) {
                        var worker = pool.workers().get(random.nextInt(2));
                        futures.add(wakes.defer(() -> pool.submit(assign(worker, count.call(runs)))));
                    }
                } finally {
                    wakes.wakeAll();
                }
                expected += tasks;
                for (CompletableFuture<Integer> future : futures) {
                    future.get(10, TimeUnit.SECONDS); // a lost wake-up leaves it queued: a timeout, not a hang
                }
            }
        }
        assertEquals(expected, runs.get());
    }

    @Test
    void aParkedWorkerIsWokenByWakeAllAndNotBefore() throws Exception {
        try (Pool pool = Moroutine.workers(1)) {
            AtomicInteger runs = new AtomicInteger();
            DeferredWakes wakes = new DeferredWakes();
            awaitParked(pool);
            CompletableFuture<Integer> first = wakes.defer(() -> pool.submit(count.call(runs)));
            CompletableFuture<Integer> second = wakes.defer(() -> pool.submit(count.call(runs)));
            // Nothing wakes the parked worker before wakeAll, so its first task cannot run yet.
            assertThrows(TimeoutException.class, () -> first.get(50, TimeUnit.MILLISECONDS));
            wakes.wakeAll();
            assertEquals(2, second.get(10, TimeUnit.SECONDS));
            assertEquals(2, runs.get());
        }
    }

    @Test
    void aDispatchMadeAfterDeferReturnsWakesAtOnce() throws Exception {
        try (Pool pool = Moroutine.workers(1)) {
            AtomicInteger runs = new AtomicInteger();
            DeferredWakes wakes = new DeferredWakes();
            awaitParked(pool);
            CompletableFuture<Integer> deferred = wakes.defer(() -> pool.submit(count.call(runs)));
            CompletableFuture<Integer> direct = pool.submit(count.call(runs)); // wakes the worker for both: FIFO
            assertEquals(2, direct.get(10, TimeUnit.SECONDS));
            assertEquals(1, deferred.get(10, TimeUnit.SECONDS));
            wakes.wakeAll(); // finds the worker awake or parked with nothing queued: harmless
        }
    }

    @Test
    void aBatchWhoseDispatchThrowsStillWakesItsWorkers() throws Exception {
        try (Pool pool = Moroutine.workers(1)) {
            AtomicInteger runs = new AtomicInteger();
            DeferredWakes wakes = new DeferredWakes();
            awaitParked(pool);
            CompletableFuture<Integer> sent = wakes.defer(() -> pool.submit(count.call(runs)));
            IllegalStateException thrown = new IllegalStateException("the batch failed after its dispatch");
            try {
                assertThrows(IllegalStateException.class, () -> wakes.defer(() -> {
                    throw thrown;
                }));
            } finally {
                wakes.wakeAll();
            }
            assertEquals(1, sent.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void twoBatchersWakeTheirOwnWorkers() throws Exception {
        try (Pool pool = Moroutine.workers(2)) {
            AtomicInteger runs = new AtomicInteger();
            DeferredWakes outer = new DeferredWakes();
            DeferredWakes inner = new DeferredWakes();
            awaitParked(pool);
            CompletableFuture<Integer> second = outer.defer(() -> {
                CompletableFuture<Integer> first = inner.defer(() -> pool.submit(assign(pool.workers().get(0), count.call(runs))));
                inner.wakeAll();
                assertEquals(1, first.orTimeout(10, TimeUnit.SECONDS).join()); // woken by its own batcher
                return pool.submit(assign(pool.workers().get(1), count.call(runs)));
            });
            outer.wakeAll();
            assertEquals(2, second.get(10, TimeUnit.SECONDS));
        }
    }

    /** A task that runs until released, or that returns at once. */
    static final class Held extends Invocation {
        private final CountDownLatch release;
        final CountDownLatch started = new CountDownLatch(1);
        final Execution<Object> execution = new Execution<>(this, null);

        Held(CountDownLatch release) {
            super(new Object[0]);
            this.release = release;
        }

        @Override
        public String id() {
            return "test#held";
        }

        @Override
        protected Object invoke(Object[] resolved) throws InterruptedException {
            started.countDown();
            return release == null || release.await(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Found by review: two shared tasks deferred to one parked worker left its siblings, parked while
     * all were idle, asleep, so the second waited behind the first however long it ran.
     */
    @Test
    void aSharedTaskDeferredBehindAnotherAtAParkedWorkerWakesASiblingThatTakesIt() throws Exception {
        List<ThreadWorker> workers = TestGroup.startWorkers("test-deferred-shared-", 3, true, null);
        CountDownLatch release = new CountDownLatch(1);
        try {
            for (int round = 0; round < 20; round++) {
                ThreadWorker owner = workers.get(round % 3);
                Held first = new Held(release);
                Held second = new Held(null);
                deferredBatch(workers, () -> {
                    owner.dispatch(first.execution);
                    owner.dispatch(second.execution);
                });
                assertTrue(first.started.await(10, TimeUnit.SECONDS));
                assertEquals(true, second.execution.get(10, TimeUnit.SECONDS), "round " + round + ": a sibling ran it");
                assertFalse(first.execution.isDone(), "the first still holds its worker");
                release.countDown(); // the first ends; the next round holds a fresh latch
                first.execution.get(10, TimeUnit.SECONDS);
                release = new CountDownLatch(1);
            }
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * Found by review of the first fix: waking a sibling at the batch's end could pick a worker of the
     * batch (still parked, its own long task queued), leaving the idle one asleep.
     */
    @Test
    void theSiblingWokenForASharedTaskIsNotOneBusyWithItsOwnTaskOfTheBatch() throws Exception {
        List<ThreadWorker> workers = TestGroup.startWorkers("test-deferred-busy-", 3, true, null);
        CountDownLatch release = new CountDownLatch(1);
        try {
            Held first = new Held(release);
            Held second = new Held(null);
            Held other = new Held(release);
            deferredBatch(workers, () -> {
                workers.get(0).dispatch(first.execution);
                workers.get(0).dispatch(second.execution);
                workers.get(1).dispatch(other.execution);
            });
            assertTrue(first.started.await(10, TimeUnit.SECONDS));
            assertTrue(other.started.await(10, TimeUnit.SECONDS));
            assertEquals(true, second.execution.get(10, TimeUnit.SECONDS), "the idle third worker ran it");
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /** Found by review of the first fix: a shared task deferred in a nested batch, behind the outer batch's task. */
    @Test
    void aSharedTaskOfANestedBatchQueuedBehindTheOuterBatchsReachesASibling() throws Exception {
        List<ThreadWorker> workers = TestGroup.startWorkers("test-deferred-nested-", 2, true, null);
        CountDownLatch release = new CountDownLatch(1);
        try {
            Held first = new Held(release);
            Held second = new Held(null);
            DeferredWakes inner = new DeferredWakes();
            deferredBatch(workers, () -> {
                workers.get(0).dispatch(first.execution);
                try {
                    inner.defer(() -> { // a batch within the batch
                        workers.get(0).dispatch(second.execution);
                        return null;
                    });
                } finally {
                    inner.wakeAll();
                }
            });
            assertTrue(first.started.await(10, TimeUnit.SECONDS));
            assertEquals(true, second.execution.get(10, TimeUnit.SECONDS), "the other worker ran it");
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * Found by review of the second fix: a shared task admitted before a deferred long one but queued
     * behind it counted its parked worker idle (admission order is not queue order).
     */
    @Test
    void aSharedTaskAdmittedBeforeButQueuedBehindADeferredLongOneReachesASibling() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Held first = new Held(release);
        Held second = new Held(null);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        List<WorkerHandle> members = new ArrayList<>();
        // Shares every task but the first (an assigned one, in a real pool); holds the second's dispatch between its
        // admission and its offer, as a preempted thread would be held.
        TestGroup group = new TestGroup(members, true, null, invocation -> {
            if (invocation == second) {
                reached.countDown();
                try {
                    assertTrue(resume.await(10, TimeUnit.SECONDS), "resumed");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            return invocation != first;
        });
        List<ThreadWorker> workers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            workers.add(new ThreadWorker("test-deferred-order-" + i, i, group));
        }
        members.addAll(workers);
        workers.forEach(ThreadWorker::start);
        ThreadWorker owner = workers.get(0);
        try {
            for (ThreadWorker worker : workers) {
                awaitParked(worker.thread());
            }
            CompletableFuture<Void> admitted = CompletableFuture.runAsync(() -> owner.dispatch(second.execution),
                    runnable -> Thread.ofPlatform().start(runnable));
            assertTrue(reached.await(10, TimeUnit.SECONDS), "the shared task admitted");
            DeferredWakes wakes = new DeferredWakes();
            try {
                wakes.defer(() -> {
                    owner.dispatch(first.execution); // queued first, its wake deferred
                    resume.countDown(); // the shared one goes on: queued behind it, it wakes the owner
                    return admitted.orTimeout(10, TimeUnit.SECONDS).join();
                });
            } finally {
                wakes.wakeAll();
            }
            assertTrue(first.started.await(10, TimeUnit.SECONDS));
            assertEquals(true, second.execution.get(10, TimeUnit.SECONDS), "the idle sibling ran it");
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /** Waits until the workers are parked, then makes {@code dispatches} as one batch and wakes it. */
    private static void deferredBatch(List<ThreadWorker> workers, Runnable dispatches) {
        for (ThreadWorker worker : workers) {
            awaitParked(worker.thread());
        }
        DeferredWakes wakes = new DeferredWakes();
        try {
            wakes.defer(() -> {
                dispatches.run();
                return null;
            });
        } finally {
            wakes.wakeAll();
        }
    }

    /** Waits until every worker of {@code pool} is parked (idle, past its spin). */
    private static void awaitParked(Pool pool) {
        for (var handle : pool.workers()) {
            awaitParked(((ThreadWorker) handle).thread());
        }
    }

    static void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.WAITING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(thread + " did not park within 10 s: " + thread.getState());
            }
            Thread.onSpinWait();
        }
    }
}
