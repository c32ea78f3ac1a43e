package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * The slots in which a worker keeps its shared executions for idle siblings are indexed by admission
 * number: a number must never be used twice, even by a dispatch that is refused or whose admission
 * fails (found by review of 6d16556).
 */
@Timeout(60)
class SharedSlotTest {

    /** An output binding whose admission waits for {@code go}, then fails (as a channel source that cannot start). */
    private static final class FailingAdmission implements Endpoint.Binding {
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);

        @Override
        public void admitted() {
            reached.countDown();
            try {
                assertTrue(go.await(20, TimeUnit.SECONDS), "the test went on");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
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
        FailingAdmission failing = new FailingAdmission();
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
}
