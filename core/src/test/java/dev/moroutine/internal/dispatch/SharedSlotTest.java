package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The slots in which a worker keeps its shared executions for idle siblings are indexed by admission
 * number: a number must never be used twice, even by a dispatch that is refused or whose admission
 * fails (found by review of 6d16556); a draining worker still waits for every dispatch it admitted,
 * whether it then offers or gives its number back (review of e7d66fc).
 */
@Timeout(60)
class SharedSlotTest {

    /** An output binding whose admission waits for {@code go}, then fails or returns. */
    private static final class HeldAdmission implements Endpoint.Binding {
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);
        final boolean fails;

        HeldAdmission(boolean fails) {
            this.fails = fails;
        }

        @Override
        public void admitted() {
            reached.countDown();
            try {
                assertTrue(go.await(20, TimeUnit.SECONDS), "the test went on");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            if (fails) {
                throw new IllegalStateException("the channel's source could not start");
            }
        }

        @Override
        public Object open(Worker worker) {
            return null;
        }
    }

    /** An output binding whose admission fails at once. */
    private static final class FailingAdmission implements Endpoint.Binding {
        @Override
        public void admitted() {
            throw new IllegalStateException("the channel's source could not start");
        }

        @Override
        public Object open(Worker worker) {
            return null;
        }
    }

    /**
     * A dispatch whose admission fails, while a shared dispatch to the same worker holds the next
     * number: the shared task must stay findable by idle siblings while the owner runs a long task.
     * When a failed admission gave its number back, a sibling's look, which counts back from the
     * newest number, stopped short of the shared task; and the next shared dispatch got the same
     * number, and overwrote the first's slot.
     */
    @ParameterizedTest(name = "another shared dispatch after it: {0}")
    @ValueSource(booleans = {false, true})
    void aFailedAdmissionDoesNotHideASharedTaskFromIdleSiblings(boolean another) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch releaseSiblings = new CountDownLatch(1);
        DeferredWakesTest.Held first = new DeferredWakesTest.Held(null);
        DeferredWakesTest.Held second = new DeferredWakesTest.Held(null);
        DeferredWakesTest.Held ownerLong = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held refused = new DeferredWakesTest.Held(null);
        HeldAdmission failing = new HeldAdmission(true);
        Execution<Object> refusedExecution = new Execution<>(refused, failing);
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation == first || invocation == second);
        List<ThreadWorker> workers = group.makeWorkers("test-review-slot-", 3, 0, new SiblingWakeRaceTest.HoldingQueue());
        workers.forEach(ThreadWorker::start);
        List<DeferredWakesTest.Held> siblingLongs = List.of(new DeferredWakesTest.Held(releaseSiblings),
                new DeferredWakesTest.Held(releaseSiblings));
        AtomicReference<Throwable> dispatchFailure = new AtomicReference<>();
        Thread dispatcher = Thread.ofPlatform().unstarted(() -> {
            try {
                workers.get(0).dispatch(refusedExecution);
            } catch (Throwable e) {
                dispatchFailure.set(e);
            }
        });
        try {
            workers.forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            for (int sibling = 1; sibling <= 2; sibling++) { // both siblings busy: nobody takes anything yet
                workers.get(sibling).dispatch(siblingLongs.get(sibling - 1).execution);
                assertTrue(siblingLongs.get(sibling - 1).started.await(10, TimeUnit.SECONDS));
            }
            workers.get(0).dispatch(ownerLong.execution); // admission number 0
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the owner's long task started");
            dispatcher.start(); // admission number 1, held in its admission
            assertTrue(failing.reached.await(10, TimeUnit.SECONDS), "the failing dispatch is being admitted");
            workers.get(0).dispatch(first.execution); // shared, admission number 2
            failing.go.countDown(); // the failed dispatch takes itself out: admitted goes back to 2
            dispatcher.join(10_000);
            assertTrue(dispatchFailure.get() instanceof IllegalStateException, "the admission failed: " + dispatchFailure.get());
            if (another) {
                workers.get(0).dispatch(second.execution); // shared: it must not take the first's slot
            }
            releaseSiblings.countDown(); // both siblings go idle while the owner's long task runs
            if (another) {
                assertEquals(true, second.execution.get(10, TimeUnit.SECONDS), "a sibling took the second shared task");
            }
            try {
                assertEquals(true, first.execution.get(5, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                fail("the first shared task waits behind the owner's long task while both siblings are idle ("
                        + workers.get(1).thread().getState() + ", " + workers.get(2).thread().getState()
                        + "): the second overwrote its slot");
            }
        } finally {
            failing.go.countDown();
            releaseSiblings.countDown();
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * A dispatch held in its admission when the worker is drained: the worker's thread, parked
     * untimed (no sibling), must wait for it, and stop once it gave its number back (its wake) or
     * ran it.
     */
    @ParameterizedTest(name = "admission fails: {0}")
    @ValueSource(booleans = {true, false})
    void aDrainingWorkerWaitsForADispatchInItsAdmissionThenStops(boolean fails) throws Exception {
        List<ThreadWorker> workers = TestGroup.startWorkers("test-givenback-drain-", 1, false, null);
        ThreadWorker worker = workers.get(0);
        HeldAdmission admission = new HeldAdmission(fails);
        DeferredWakesTest.Held task = new DeferredWakesTest.Held(null);
        Execution<Object> execution = new Execution<>(task, admission);
        AtomicReference<Throwable> dispatchFailure = new AtomicReference<>();
        Thread dispatcher = Thread.ofPlatform().start(() -> {
            try {
                worker.dispatch(execution);
            } catch (Throwable e) {
                dispatchFailure.set(e);
            }
        });
        try {
            DeferredWakesTest.awaitParked(worker.thread());
            assertTrue(admission.reached.await(10, TimeUnit.SECONDS));
            worker.drain("test drain");
            // Nothing may stop it yet: a dispatch it admitted has neither offered nor given back.
            assertFalse(worker.awaitStopped(200, TimeUnit.MILLISECONDS), "stopped before the admitted dispatch ended");
            DeferredWakesTest.awaitParked(worker.thread()); // untimed: only the dispatch's wake gets it going
            admission.go.countDown();
            dispatcher.join(10_000);
            assertTrue(worker.awaitStopped(10, TimeUnit.SECONDS), "the draining worker stopped after the dispatch ended");
            if (fails) {
                assertTrue(dispatchFailure.get() instanceof IllegalStateException, "admission failed: " + dispatchFailure.get());
                assertEquals(1, task.started.getCount(), "never ran");
            } else {
                assertEquals(null, dispatchFailure.get());
                assertEquals(true, execution.get(10, TimeUnit.SECONDS), "admitted before the drain: it ran");
            }
            assertThrows(RejectedExecutionException.class,
                    () -> worker.dispatch(new DeferredWakesTest.Held(null).execution));
        } finally {
            admission.go.countDown();
            worker.forceStop("test over");
        }
    }

    /**
     * A shared task queued behind its owner's long task, then many numbers given back above it
     * (refused while the owner drains, or failed admissions while it is open): more than the slots,
     * so a look counts back past all of them; an idle sibling must still find and run it.
     */
    @ParameterizedTest(name = "owner draining: {0}")
    @ValueSource(booleans = {true, false})
    void aSharedTaskBelowManyGivenBackNumbersIsStillTaken(boolean draining) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch releaseSibling = new CountDownLatch(1);
        DeferredWakesTest.Held ownerLong = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held siblingLong = new DeferredWakesTest.Held(releaseSibling);
        List<DeferredWakesTest.Held> sharedTasks = List.of(new DeferredWakesTest.Held(null), new DeferredWakesTest.Held(null));
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, sharedTasks::contains);
        List<ThreadWorker> workers = group.makeWorkers("test-givenback-slots-", 2, 0, new SiblingWakeRaceTest.HoldingQueue());
        workers.forEach(ThreadWorker::start);
        ThreadWorker owner = workers.get(0);
        ThreadWorker sibling = workers.get(1);
        try {
            workers.forEach(worker -> DeferredWakesTest.awaitParked(worker.thread()));
            sibling.dispatch(siblingLong.execution);
            assertTrue(siblingLong.started.await(10, TimeUnit.SECONDS));
            owner.dispatch(ownerLong.execution); // number 0
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS));
            owner.dispatch(sharedTasks.get(0).execution); // number 1, shared
            if (!draining) {
                owner.dispatch(sharedTasks.get(1).execution); // number 2, shared
            }
            if (draining) {
                owner.drain("test drain");
            }
            for (int i = 0; i < 3 * 64 + 5; i++) {
                if (draining) {
                    assertThrows(RejectedExecutionException.class,
                            () -> owner.dispatch(new DeferredWakesTest.Held(null).execution));
                } else {
                    Execution<Object> failing = new Execution<>(new DeferredWakesTest.Held(null), new FailingAdmission());
                    assertThrows(IllegalStateException.class, () -> owner.dispatch(failing));
                }
            }
            releaseSibling.countDown(); // the sibling goes idle while the owner's long task runs
            for (int i = 0; i < (draining ? 1 : 2); i++) {
                try {
                    assertEquals(true, sharedTasks.get(i).execution.get(10, TimeUnit.SECONDS));
                } catch (TimeoutException e) {
                    fail("shared task " + i + " waits behind the owner's long task while the sibling is idle ("
                            + sibling.thread().getState() + ")");
                }
            }
            assertFalse(ownerLong.execution.isDone(), "the sibling ran it, not the owner");
            release.countDown();
            assertEquals(true, ownerLong.execution.get(10, TimeUnit.SECONDS));
            if (draining) {
                assertTrue(owner.awaitStopped(10, TimeUnit.SECONDS), "the drained owner stopped");
            }
        } finally {
            releaseSibling.countDown();
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }
}
