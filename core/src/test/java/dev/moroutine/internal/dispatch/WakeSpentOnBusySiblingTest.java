package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.WorkerHandle;
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
 * Found by review of 079cc34: a shared dispatch to a busy worker wakes the first sibling that shows
 * itself parked while all were idle, with an empty queue; a sibling in its pre-park poll that has just
 * taken its own long task still shows both. The one wake was spent on it, and a truly idle sibling
 * stayed in its untimed park. Now the sibling passes the wake on.
 */
@Timeout(60)
class WakeSpentOnBusySiblingTest {

    static final Field PARKED;

    static {
        try {
            PARKED = ThreadWorker.class.getDeclaredField("parked");
            PARKED.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Holds its worker's thread in the pre-park poll (parked == PARKED_ALL_IDLE), before and after it polls. */
    static final class HookedQueue extends MpscUnboundedAtomicArrayQueue<Execution<?>> {
        volatile ThreadWorker owner;
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch offered = new CountDownLatch(1);
        final CountDownLatch polled = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        HookedQueue() {
            super(256);
        }

        @Override
        public Execution<?> poll() {
            ThreadWorker worker = owner;
            try {
                if (worker != null && Thread.currentThread() == worker.thread() && PARKED.getInt(worker) == 3) {
                    owner = null;
                    reached.countDown();
                    assertTrue(offered.await(20, TimeUnit.SECONDS), "offered");
                    Execution<?> execution = super.poll();
                    polled.countDown();
                    assertTrue(resume.await(20, TimeUnit.SECONDS), "resumed");
                    return execution;
                }
            } catch (InterruptedException | IllegalAccessException e) {
                throw new AssertionError(e);
            }
            return super.poll();
        }
    }

    @Test
    void aSharedTaskBehindALongOneIsNotLeftWhileAnIdleSiblingSleepsUntimed() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredWakesTest.Held ownerLong = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held siblingLong = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held sharedOne = new DeferredWakesTest.Held(null);
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation == sharedOne);
        HookedQueue queue = new HookedQueue();
        List<ThreadWorker> workers = group.makeWorkers("test-wake-spent-", 3, 1, queue);
        ThreadWorker owner = workers.get(0);
        ThreadWorker busySibling = workers.get(1);
        ThreadWorker idleSibling = workers.get(2);
        queue.owner = busySibling;
        workers.forEach(ThreadWorker::start);
        DeferredWakes wakes = new DeferredWakes();
        try {
            // Sibling 1 has published PARKED_ALL_IDLE and is at its pre-park poll; the others park untimed.
            assertTrue(queue.reached.await(10, TimeUnit.SECONDS), "sibling 1 at its pre-park poll");
            DeferredWakesTest.awaitParked(owner.thread());
            DeferredWakesTest.awaitParked(idleSibling.thread());
            try {
                // An assigned long task for sibling 1, its wake deferred (or its dispatcher preempted before wake()).
                wakes.defer(() -> {
                    busySibling.dispatch(siblingLong.execution);
                    return null;
                });
                queue.offered.countDown();
                assertTrue(queue.polled.await(10, TimeUnit.SECONDS), "sibling 1 took its task, parked still PARKED_ALL_IDLE");
                owner.dispatch(ownerLong.execution); // assigned, long: the owner wakes and runs it
                assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS), "the long task started");
                owner.dispatch(sharedOne.execution); // busy (parked == 0): wakes one sibling parked all idle
            } finally {
                queue.resume.countDown();
                wakes.wakeAll();
            }
            assertTrue(siblingLong.started.await(10, TimeUnit.SECONDS), "sibling 1 runs its own long task");
            try {
                assertEquals(true, sharedOne.execution.get(5, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                fail("the shared task waits behind the long one; sibling 2 is " + idleSibling.thread().getState()
                        + " (untimed park), the one wake went to sibling 1, busy with its own task");
            }
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }
}
