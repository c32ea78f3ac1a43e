package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.WorkerHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Races, each found by a review, in which a shared task queued behind a long one at its worker waited
 * there while an idle sibling slept untimed (parked while all were idle). Each test holds one thread
 * at the racing point, as a preemption there would, through the worker's queue ({@link HoldingQueue},
 * swapped in by {@link TestGroup#makeWorkers}), and asserts that the shared task runs at a sibling
 * while the long one still runs.
 */
@Timeout(60)
class SiblingWakeRaceTest {

    /** A worker's {@code parked} field. */
    static final VarHandle PARKED;

    static {
        try {
            PARKED = MethodHandles.privateLookupIn(ThreadWorker.class, MethodHandles.lookup())
                    .findVarHandle(ThreadWorker.class, "parked", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A worker's queue that holds a chosen thread at a chosen point until {@code resume}. */
    static final class HoldingQueue extends MpscUnboundedAtomicArrayQueue<Execution<?>> {
        /** Held in currentProducerIndex(), once. */
        volatile Thread inProducerIndex;
        /** Held in isEmpty(), after the read, once. */
        volatile Thread inIsEmpty;
        /** Held in relaxedPoll() (a thread taking its next task, or an idle thread's spin), before it, once. */
        volatile Thread inRelaxedPoll;
        /** Whose own thread is held in its poll before parking (parked while all idle), once: until {@code offered}, and after. */
        volatile ThreadWorker inPreParkPoll;
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch offered = new CountDownLatch(1);
        final CountDownLatch polled = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        HoldingQueue() {
            super(256);
        }

        private static void await(CountDownLatch latch) {
            try {
                assertTrue(latch.await(20, TimeUnit.SECONDS), "the test went on");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public long currentProducerIndex() {
            if (Thread.currentThread() == inProducerIndex) {
                inProducerIndex = null;
                reached.countDown();
                await(resume);
            }
            return super.currentProducerIndex();
        }

        @Override
        public boolean isEmpty() {
            boolean empty = super.isEmpty();
            if (Thread.currentThread() == inIsEmpty) {
                inIsEmpty = null;
                reached.countDown();
                await(resume);
            }
            return empty;
        }

        @Override
        public Execution<?> relaxedPoll() {
            if (Thread.currentThread() == inRelaxedPoll) {
                inRelaxedPoll = null;
                reached.countDown();
                await(resume);
            }
            return super.relaxedPoll();
        }

        @Override
        public Execution<?> poll() {
            ThreadWorker worker = inPreParkPoll;
            if (worker == null || Thread.currentThread() != worker.thread() || (int) PARKED.getVolatile(worker) != 3) {
                return super.poll();
            }
            inPreParkPoll = null;
            reached.countDown();
            await(offered);
            Execution<?> execution = super.poll();
            polled.countDown();
            await(resume);
            return execution;
        }
    }

    /**
     * Workers of a group that shares only {@code shared} and {@code sharedLong} (which runs until the pool
     * stops), the one at index {@code held} with a {@link HoldingQueue}, and the latch that ends their long tasks.
     */
    private record Pool(List<ThreadWorker> workers, HoldingQueue queue, CountDownLatch release, DeferredWakesTest.Held shared,
            DeferredWakesTest.Held sharedLong) {
        static Pool of(int count, int held) throws ReflectiveOperationException {
            CountDownLatch release = new CountDownLatch(1);
            DeferredWakesTest.Held shared = new DeferredWakesTest.Held(null);
            DeferredWakesTest.Held sharedLong = new DeferredWakesTest.Held(release);
            List<WorkerHandle> members = new ArrayList<>();
            HoldingQueue queue = new HoldingQueue();
            TestGroup group = new TestGroup(members, true, null, invocation -> invocation == shared || invocation == sharedLong);
            List<ThreadWorker> made = group.makeWorkers("test-sibling-race-" + held + "-", count, held, queue);
            return new Pool(made, queue, release, shared, sharedLong);
        }

        /** A task, not shared, that runs until the pool stops. */
        DeferredWakesTest.Held longTask() {
            return new DeferredWakesTest.Held(release);
        }

        ThreadWorker get(int index) {
            return workers.get(index);
        }

        void start() {
            workers.forEach(ThreadWorker::start);
        }

        void stop() {
            queue.resume.countDown();
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    private static void assertRanElsewhere(DeferredWakesTest.Held shared, ThreadWorker idle) throws Exception {
        try {
            assertEquals(true, shared.execution.get(5, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
            fail("the shared task waits behind the long one; the idle sibling is " + idle.thread().getState());
        }
    }

    /** Found by review of f556949: the dispatch read parked (parked), then the indices after the worker woke and took the task ahead. */
    @Test
    void aDispatchThatReadsParkedBeforeItsWorkerWakesAndTakesTheTaskAheadWakesASibling() throws Exception {
        Pool pool = Pool.of(2, 0);
        DeferredWakesTest.Held first = pool.longTask();
        DeferredWakesTest.Held second = pool.shared();
        pool.start();
        try {
            pool.workers().forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            DeferredWakes wakes = new DeferredWakes();
            Thread dispatcher = Thread.ofPlatform().unstarted(() -> pool.get(0).dispatch(second.execution));
            try {
                wakes.defer(() -> {
                    pool.get(0).dispatch(first.execution); // long, not shared, its wake deferred
                    return null;
                });
                pool.queue().inProducerIndex = dispatcher;
                dispatcher.start(); // offers, fences, reads parked (parked): held before it reads the indices
                assertTrue(pool.queue().reached.await(10, TimeUnit.SECONDS), "the dispatch reads the indices");
            } finally {
                wakes.wakeAll(); // the owner wakes and takes the long task
            }
            assertTrue(first.started.await(10, TimeUnit.SECONDS), "the long task started");
            pool.queue().resume.countDown();
            assertRanElsewhere(second, pool.get(1));
        } finally {
            pool.stop();
        }
    }

    /** The part of a race at sibling 1 that differs from test to test. */
    @FunctionalInterface
    private interface Race {
        void run(Pool pool, DeferredWakesTest.Held ownerLong, DeferredWakesTest.Held siblingLong, DeferredWakes wakes)
                throws Exception;
    }

    /**
     * Three workers, sibling 1's thread held in its pre-park poll if asked: after {@code race}
     * (which dispatches the owner's long task, sibling 1's, deferred in {@code wakes}, and the shared
     * one to the owner), sibling 1 runs its own long task and the shared one ran at sibling 2.
     */
    private static void raceAtSiblingOne(boolean holdInPreParkPoll, Race race) throws Exception {
        Pool pool = Pool.of(3, 1);
        DeferredWakesTest.Held ownerLong = pool.longTask();
        DeferredWakesTest.Held siblingLong = pool.longTask();
        if (holdInPreParkPoll) {
            pool.queue().inPreParkPoll = pool.get(1);
        }
        pool.start();
        DeferredWakes wakes = new DeferredWakes();
        try {
            race.run(pool, ownerLong, siblingLong, wakes);
            assertTrue(siblingLong.started.await(10, TimeUnit.SECONDS), "sibling 1 runs its own long task");
            assertRanElsewhere(pool.shared(), pool.get(2));
        } finally {
            pool.stop();
        }
    }

    /** Found by review of 079cc34: the wake for an idle sibling went to one in its pre-park poll that had just taken its own long task. */
    @Test
    void aSiblingThatTookItsOwnTaskInItsPreParkPollPassesTheWakeOn() throws Exception {
        raceAtSiblingOne(true, (pool, ownerLong, siblingLong, wakes) -> {
            assertTrue(pool.queue().reached.await(10, TimeUnit.SECONDS), "sibling 1 at its pre-park poll");
            DeferredWakesTest.awaitParked(pool.get(0).thread());
            DeferredWakesTest.awaitParked(pool.get(2).thread());
            try {
                wakes.defer(() -> {
                    pool.get(1).dispatch(siblingLong.execution); // assigned, long, its wake deferred
                    return null;
                });
                pool.queue().offered.countDown();
                assertTrue(pool.queue().polled.await(10, TimeUnit.SECONDS), "sibling 1 took its task, still shown parked");
                pool.get(0).dispatch(ownerLong.execution);
                assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
                pool.get(0).dispatch(pool.shared().execution); // the owner is busy: a sibling parked while all idle is woken
            } finally {
                pool.queue().resume.countDown();
                wakes.wakeAll();
            }
        });
    }

    /** Found by review of c8d5e78: the wake went to a sibling that got work of its own between the waker's look at its queue and its CAS. */
    @Test
    void aSiblingWokenToLookThatGotWorkOfItsOwnMeanwhilePassesTheWakeOn() throws Exception {
        raceAtSiblingOne(false, (pool, ownerLong, siblingLong, wakes) -> {
            pool.workers().forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            pool.get(0).dispatch(ownerLong.execution);
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
            Thread dispatcher = Thread.ofPlatform().unstarted(() -> pool.get(0).dispatch(pool.shared().execution));
            pool.queue().inIsEmpty = dispatcher;
            dispatcher.start(); // the owner is busy: it looks at sibling 1's queue (empty), held before its CAS
            try {
                assertTrue(pool.queue().reached.await(10, TimeUnit.SECONDS), "the dispatch looked at sibling 1's queue");
                wakes.defer(() -> {
                    pool.get(1).dispatch(siblingLong.execution); // assigned, long, its wake deferred
                    return null;
                });
            } finally {
                pool.queue().resume.countDown();
            }
            dispatcher.join(20_000);
            wakes.wakeAll();
        });
    }

    /** Found by review of 333583b: sibling 1, woken to look, found its queue empty, then got a long task of its own and ran it. */
    @Test
    void aSiblingWokenToLookThatGetsWorkOfItsOwnJustAfterItWokePassesTheWakeOn() throws Exception {
        raceAtSiblingOne(false, (pool, ownerLong, siblingLong, wakes) -> {
            pool.workers().forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            pool.get(0).dispatch(ownerLong.execution);
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
            pool.queue().inIsEmpty = pool.get(1).thread(); // sibling 1, woken to look: held in its look at its queue
            pool.get(0).dispatch(pool.shared().execution);
            try {
                assertTrue(pool.queue().reached.await(10, TimeUnit.SECONDS), "sibling 1 woke and looked at its queue");
                pool.get(1).dispatch(siblingLong.execution); // assigned, long
            } finally {
                pool.queue().resume.countDown();
            }
        });
    }

    /**
     * Found by review of 1f93ad4: sibling 2, woken to look for the owner's (1) shared task, took instead a long
     * shared one from worker 0, whose thread, woken for it, was slow to run (held here): sent to an idle worker,
     * that task had woken no sibling, and worker 0 then found it taken and ran its own long task without looking.
     */
    @Test
    void aSiblingWokenToLookThatRunsASiblingsTaskPassesTheWakeOn() throws Exception {
        Pool pool = Pool.of(4, 0);
        DeferredWakesTest.Held ownerLong = pool.longTask();
        DeferredWakesTest.Held otherLong = pool.longTask();
        pool.start();
        try {
            pool.workers().forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            pool.get(1).dispatch(ownerLong.execution);
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
            pool.queue().inRelaxedPoll = pool.get(0).thread(); // worker 0, once woken: held before it takes its tasks
            pool.get(0).dispatch(pool.sharedLong().execution); // worker 0 parked with nothing queued: no sibling is woken
            pool.get(0).dispatch(otherLong.execution); // assigned, long, behind it
            try {
                assertTrue(pool.queue().reached.await(10, TimeUnit.SECONDS), "worker 0 woke");
                pool.get(1).dispatch(pool.shared().execution); // the owner is busy: sibling 2 is woken to look
                assertTrue(pool.sharedLong().started.await(10, TimeUnit.SECONDS), "sibling 2 took worker 0's shared task");
            } finally {
                pool.queue().resume.countDown();
            }
            assertTrue(otherLong.started.await(10, TimeUnit.SECONDS), "worker 0 runs its own long task");
            assertRanElsewhere(pool.shared(), pool.get(3));
        } finally {
            pool.stop();
        }
    }

    /**
     * Found by review of 1f93ad4, the race above with a woken sibling (0) that has no spin left (each
     * wait that ends in a park halves it): it looks once, sees nothing stuck yet (it takes two looks),
     * parks for a while as the owner is busy, and then takes worker 1's task, sent to worker 1 while it
     * was idle, so that worker 1 alone was woken for it.
     */
    @Test
    void aSiblingWokenToLookThatParksForAWhileBeforeItRunsASiblingsTaskPassesTheWakeOn() throws Exception {
        Pool pool = Pool.of(4, 1); // 0: the woken sibling, 1: the slow worker, 2: the owner, 3: the idle one
        HoldingQueue looker = new HoldingQueue();
        TestGroup.replaceQueue(pool.get(0), looker);
        Field idleSpin = ThreadWorker.class.getDeclaredField("idleSpin");
        idleSpin.setAccessible(true);
        Field nanos = SpinBudget.class.getDeclaredField("nanos");
        nanos.setAccessible(true);
        nanos.setInt(idleSpin.get(pool.get(0)), 0);
        CountDownLatch endFirst = new CountDownLatch(1);
        DeferredWakesTest.Held first = new DeferredWakesTest.Held(endFirst);
        DeferredWakesTest.Held ownerLong = pool.longTask();
        DeferredWakesTest.Held otherLong = pool.longTask();
        pool.start();
        try {
            pool.workers().forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            pool.get(2).dispatch(first.execution);
            assertTrue(first.started.await(10, TimeUnit.SECONDS), "the owner's first task started");
            pool.get(2).dispatch(ownerLong.execution);
            looker.inRelaxedPoll = pool.get(0).thread();
            pool.get(2).dispatch(pool.shared().execution); // the owner is busy: sibling 0 is woken to look
            assertTrue(looker.reached.await(10, TimeUnit.SECONDS), "sibling 0 looked once and waits");
            endFirst.countDown(); // the owner finishes a task: at sibling 0's next look it is not stuck
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
            pool.queue().inRelaxedPoll = pool.get(1).thread();
            pool.get(1).dispatch(pool.sharedLong().execution); // worker 1 is idle: no sibling is woken
            pool.get(1).dispatch(otherLong.execution); // assigned, long, behind it
            assertTrue(pool.queue().reached.await(10, TimeUnit.SECONDS), "worker 1 woke");
            looker.resume.countDown(); // no spin left: it looks, finds nothing stuck yet and parks for a while
            assertTrue(pool.sharedLong().started.await(10, TimeUnit.SECONDS), "sibling 0 took worker 1's shared task");
            pool.queue().resume.countDown();
            assertTrue(otherLong.started.await(10, TimeUnit.SECONDS), "worker 1 runs its own long task");
            assertRanElsewhere(pool.shared(), pool.get(3));
        } finally {
            endFirst.countDown();
            looker.resume.countDown();
            pool.stop();
        }
    }
}
