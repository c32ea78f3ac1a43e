package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Found by review of 5e9696a: a sibling woken to look owes the look ({@code owesLook}) until it runs a
 * task or parks untimed, and passes the wake on at that task; it must not when the task it was woken
 * for has been taken already (by itself, or run by its owner), or the sibling it wakes finds nothing,
 * and, a sibling being busy, no longer sleeps untimed but looks again every {@code LOOK_AGAIN_NANOS}
 * while that sibling stays busy.
 */
@Timeout(60)
class OwedLookTest {

    private static final int PARKED_ALL_IDLE = 3;
    private static final int WOKEN_TO_LOOK = 4;

    private static int parked(ThreadWorker worker) {
        return (int) SiblingWakeRaceTest.PARKED.getVolatile(worker);
    }

    /** Workers of a group that shares {@code shared} only, the one at {@code hooked} with {@code queue}; not started. */
    private static List<ThreadWorker> pool(String prefix, int count, int hooked, SiblingWakeRaceTest.HoldingQueue queue,
            DeferredWakesTest.Held shared) throws ReflectiveOperationException {
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation == shared);
        return group.makeWorkers(prefix, count, hooked, queue);
    }

    /** Waits until {@code worker}'s thread is in its timed park (parked while a sibling is busy). */
    private static void awaitTimedParked(ThreadWorker worker) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (worker.thread().getState() != Thread.State.TIMED_WAITING || parked(worker) != 1) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(worker + " did not park for a while within 10 s: " + worker.thread().getState());
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Sibling 1, woken to look for the owner's (0) shared task queued behind its long one, takes that very
     * task, and, running it first, passes the wake on: sibling 2, parked untimed while all were idle, is
     * woken for a task already taken (before 5e9696a a sibling's task passed nothing on). Every task shared
     * as designed thus wakes two threads.
     */
    @Test
    void aSiblingWokenToLookThatTakesTheTaskItWasWokenForWakesNoOtherSibling() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredWakesTest.Held shared = new DeferredWakesTest.Held(null);
        DeferredWakesTest.Held ownerLong = new DeferredWakesTest.Held(release);
        List<ThreadWorker> workers = pool("test-owed-took-", 3, 0, new SiblingWakeRaceTest.HoldingQueue(), shared);
        workers.forEach(ThreadWorker::start);
        try {
            workers.forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            workers.get(0).dispatch(ownerLong.execution);
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
            workers.get(0).dispatch(shared.execution); // the owner is busy: sibling 1 is woken to look
            assertEquals(true, shared.execution.get(10, TimeUnit.SECONDS));
            assertSame(workers.get(1), shared.execution.worker(), "sibling 1, woken for it, took it");
            // Whatever sibling 1 passed on, it did before it ran the task.
            assertEquals(PARKED_ALL_IDLE, parked(workers.get(2)),
                    "sibling 2 was woken for a task that sibling 1 had already taken");
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * The wake passed on for nothing above is owed in turn: while the owner's long task runs, one shared task,
     * taken as designed, and then one short task of their own for siblings 2 and 3 wake sibling 4 too, each
     * sibling passing to the next (before 5e9696a sibling 4 slept on). Every idle sibling of a pool with a
     * long task ends up polling every millisecond, one link per task.
     */
    @Test
    void aWakePassedOnForNothingIsNotPassedOnAgain() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredWakesTest.Held shared = new DeferredWakesTest.Held(null);
        DeferredWakesTest.Held ownerLong = new DeferredWakesTest.Held(release);
        List<ThreadWorker> workers = pool("test-owed-chain-", 5, 0, new SiblingWakeRaceTest.HoldingQueue(), shared);
        workers.forEach(ThreadWorker::start);
        try {
            workers.forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            workers.get(0).dispatch(ownerLong.execution);
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
            workers.get(0).dispatch(shared.execution); // the owner is busy: sibling 1 is woken to look, and takes it
            assertEquals(true, shared.execution.get(10, TimeUnit.SECONDS));
            for (int sibling = 2; sibling <= 3; sibling++) {
                DeferredWakesTest.Held own = new DeferredWakesTest.Held(null);
                workers.get(sibling).dispatch(own.execution); // assigned, short
                assertEquals(true, own.execution.get(10, TimeUnit.SECONDS));
            }
            assertEquals(PARKED_ALL_IDLE, parked(workers.get(4)),
                    "sibling 4 was woken, down a chain of wakes passed on, for a task taken long before");
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * Sibling 1, woken to look for the owner's (0) shared task, looks once and is held in its spin; the owner
     * then runs the task itself. Sibling 2 is in a long task of its own, so sibling 1 parks for a while, again
     * and again, owing the look for as long as sibling 2 stays busy (before 5e9696a any park dropped it), and
     * the next task sent to it, however late, wakes sibling 3 for nothing: from its untimed park sibling 3 goes
     * to polling every millisecond while sibling 2 is busy, and owes a look in turn.
     */
    @Test
    void aWakeWhoseTaskRanAtItsOwnerIsNotPassedOnAtTheWokenSiblingsNextTask() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch endFirst = new CountDownLatch(1);
        DeferredWakesTest.Held shared = new DeferredWakesTest.Held(null);
        DeferredWakesTest.Held first = new DeferredWakesTest.Held(endFirst);
        DeferredWakesTest.Held busyLong = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held own = new DeferredWakesTest.Held(null);
        SiblingWakeRaceTest.HoldingQueue looker = new SiblingWakeRaceTest.HoldingQueue();
        // 0: the owner, 1: the sibling woken to look (held), 2: busy with a long task of its own, 3: idle
        List<ThreadWorker> workers = pool("test-owed-stale-", 4, 1, looker, shared);
        workers.forEach(ThreadWorker::start);
        try {
            workers.forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            workers.get(2).dispatch(busyLong.execution); // assigned: wakes worker 2 only
            assertTrue(busyLong.started.await(10, TimeUnit.SECONDS), "sibling 2's long task started");
            workers.get(0).dispatch(first.execution);
            assertTrue(first.started.await(10, TimeUnit.SECONDS), "the owner's first task started");
            looker.inRelaxedPoll = workers.get(1).thread();
            workers.get(0).dispatch(shared.execution); // the owner is busy: sibling 1 is woken to look
            assertTrue(looker.reached.await(10, TimeUnit.SECONDS), "sibling 1 looked once and waits");
            endFirst.countDown(); // the owner goes on to the shared task itself
            assertEquals(true, shared.execution.get(10, TimeUnit.SECONDS));
            assertSame(workers.get(0), shared.execution.worker(), "the owner ran its shared task");
            looker.resume.countDown(); // sibling 1 looks again: nothing waits; sibling 2 is busy: it parks for a while
            awaitTimedParked(workers.get(1));
            assertEquals(PARKED_ALL_IDLE, parked(workers.get(3)), "sibling 3 still sleeps untimed");
            workers.get(1).dispatch(own.execution); // assigned, short
            assertEquals(true, own.execution.get(10, TimeUnit.SECONDS));
            // Whatever sibling 1 passed on, it did before it ran the task.
            assertEquals(PARKED_ALL_IDLE, parked(workers.get(3)),
                    "sibling 3 was woken, at sibling 1's next task, for a task its owner had run long before");
        } finally {
            endFirst.countDown();
            looker.resume.countDown();
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * Found by review of 6d16556, which filtered the owed look's pass-on but not the pass-on at the wake-up: sibling 1, woken to
     * look for the owner's (0) shared task, is slow to leave its park (held in its pre-park poll here)
     * and gets a task of its own meanwhile; the owner has run the shared task by then, yet sibling 1
     * still passes the wake on, and sibling 3, parked untimed, is woken for a task run long before (and
     * then polls every millisecond while sibling 2 is busy).
     */
    @Test
    void aSiblingWokenToLookThatHasWorkOfItsOwnWakesNobodyWhenTheTaskItWasWokenForRan() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch endFirst = new CountDownLatch(1);
        DeferredWakesTest.Held shared = new DeferredWakesTest.Held(null);
        DeferredWakesTest.Held first = new DeferredWakesTest.Held(endFirst);
        DeferredWakesTest.Held busyLong = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held own = new DeferredWakesTest.Held(null);
        SiblingWakeRaceTest.HoldingQueue looker = new SiblingWakeRaceTest.HoldingQueue();
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation == shared);
        // 0: the owner, 1: the sibling woken to look (held), 2: busy with a long task of its own, 3: idle
        List<ThreadWorker> workers = group.makeWorkers("test-review-wakeup-", 4, 1, looker);
        looker.inPreParkPoll = workers.get(1);
        workers.forEach(ThreadWorker::start);
        try {
            assertTrue(looker.reached.await(10, TimeUnit.SECONDS), "sibling 1 at its pre-park poll, parked while all idle");
            DeferredWakesTest.awaitParked(workers.get(0).thread());
            DeferredWakesTest.awaitParked(workers.get(2).thread());
            DeferredWakesTest.awaitParked(workers.get(3).thread());
            workers.get(2).dispatch(busyLong.execution); // assigned: wakes worker 2 only
            assertTrue(busyLong.started.await(10, TimeUnit.SECONDS), "sibling 2's long task started");
            workers.get(0).dispatch(first.execution);
            assertTrue(first.started.await(10, TimeUnit.SECONDS), "the owner's first task started");
            workers.get(0).dispatch(shared.execution); // the owner is busy: sibling 1 is woken to look
            assertEquals(WOKEN_TO_LOOK, parked(workers.get(1)), "sibling 1 was woken to look");
            workers.get(1).dispatch(own.execution); // assigned, short
            endFirst.countDown(); // the owner goes on to the shared task itself
            assertEquals(true, shared.execution.get(10, TimeUnit.SECONDS));
            assertSame(workers.get(0), shared.execution.worker(), "the owner ran its shared task");
            assertEquals(PARKED_ALL_IDLE, parked(workers.get(3)), "sibling 3 still sleeps untimed");
            looker.offered.countDown();
            assertTrue(looker.polled.await(10, TimeUnit.SECONDS), "sibling 1 took its own task");
            looker.resume.countDown();
            assertEquals(true, own.execution.get(10, TimeUnit.SECONDS));
            // Whatever sibling 1 passed on, it did before it ran its task.
            assertEquals(PARKED_ALL_IDLE, parked(workers.get(3)),
                    "sibling 3 was woken, at sibling 1's wake-up, for a task its owner had run before");
        } finally {
            endFirst.countDown();
            looker.offered.countDown();
            looker.resume.countDown();
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * Found by review of 6d16556: the other pass-on at the wake-up, for a worker that found work in its pre-park poll while it
     * showed itself parked and has more queued: meant for a shared dispatch that counted it idle, it
     * also fires when what is queued is assigned, which no sibling can take. Worker 1 gets two tasks
     * of its own (assigned, not shared) as it parks; a sibling (0 or 3) is woken for nothing, and polls every
     * millisecond while worker 1 (or anyone) is busy. Worker 2 is busy throughout, so that the one woken
     * keeps polling.
     */
    @Test
    void aWorkerThatFindsAssignedWorkAsItParksWakesNoSibling() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredWakesTest.Held busyLong = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held firstOwn = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held secondOwn = new DeferredWakesTest.Held(null);
        DeferredWakesTest.Held neverShared = new DeferredWakesTest.Held(null);
        SiblingWakeRaceTest.HoldingQueue queue = new SiblingWakeRaceTest.HoldingQueue();
        List<WorkerHandle> members = new ArrayList<>();
        // a pool that shares work (one task kind), though none of the tasks below is shared
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation == neverShared);
        List<ThreadWorker> workers = group.makeWorkers("test-review-assigned-", 4, 1, queue);
        queue.inPreParkPoll = workers.get(1);
        workers.forEach(ThreadWorker::start);
        try {
            assertTrue(queue.reached.await(10, TimeUnit.SECONDS), "worker 1 at its pre-park poll, parked while all idle");
            DeferredWakesTest.awaitParked(workers.get(0).thread());
            DeferredWakesTest.awaitParked(workers.get(2).thread());
            DeferredWakesTest.awaitParked(workers.get(3).thread());
            workers.get(2).dispatch(busyLong.execution); // assigned: wakes worker 2 only
            assertTrue(busyLong.started.await(10, TimeUnit.SECONDS), "worker 2's long task started");
            workers.get(1).dispatch(firstOwn.execution); // assigned
            workers.get(1).dispatch(secondOwn.execution); // assigned, behind it
            assertEquals(List.of(PARKED_ALL_IDLE, PARKED_ALL_IDLE), List.of(parked(workers.get(0)), parked(workers.get(3))),
                    "workers 0 and 3 sleep untimed");
            queue.offered.countDown();
            assertTrue(queue.polled.await(10, TimeUnit.SECONDS), "worker 1 took its first task in its pre-park poll");
            queue.resume.countDown();
            assertTrue(firstOwn.started.await(10, TimeUnit.SECONDS), "worker 1 runs its first task");
            // Whatever worker 1 passed on, it did before it ran the task.
            assertEquals(List.of(PARKED_ALL_IDLE, PARKED_ALL_IDLE), List.of(parked(workers.get(0)), parked(workers.get(3))),
                    "a sibling was woken to look for assigned tasks, which it cannot take");
        } finally {
            queue.offered.countDown();
            queue.resume.countDown();
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }
}
