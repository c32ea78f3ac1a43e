package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Found by review of f556949: a shared dispatch reads {@code parked} (the worker parked), is
 * preempted, and only then reads the queue's indices: meanwhile the batch's deferred wake woke the
 * worker, which took the long task queued ahead. The dispatch counted one element queued (its own)
 * and a parked worker: not busy, and no sibling looked.
 */
@Timeout(60)
class StaleParkedReadTest {

    /** The worker's queue, holding one chosen thread in currentProducerIndex() as a preemption would. */
    static final class HookedQueue extends MpscUnboundedAtomicArrayQueue<Execution<?>> {
        volatile Thread held;
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        HookedQueue() {
            super(256);
        }

        @Override
        public long currentProducerIndex() {
            if (Thread.currentThread() == held) {
                held = null;
                reached.countDown();
                try {
                    assertTrue(resume.await(10, TimeUnit.SECONDS), "resumed");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            return super.currentProducerIndex();
        }
    }

    @Test
    void aSharedDispatchThatReadsParkedBeforeTheWorkerTakesTheTaskAheadStillReachesASibling() throws Exception {
        List<WorkerHandle> members = new ArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        DeferredWakesTest.Held first = new DeferredWakesTest.Held(release);
        DeferredWakesTest.Held second = new DeferredWakesTest.Held(null);
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation != first);
        HookedQueue queue = new HookedQueue();
        List<ThreadWorker> workers = group.makeWorkers("test-stale-parked-", 2, 0, queue);
        ThreadWorker owner = workers.get(0);
        workers.forEach(ThreadWorker::start);
        try {
            for (ThreadWorker worker : workers) {
                DeferredWakesTest.awaitParked(worker.thread()); // untimed: PARKED_ALL_IDLE
            }
            DeferredWakes wakes = new DeferredWakes();
            try {
                wakes.defer(() -> {
                    owner.dispatch(first.execution); // the long one, not shared, its wake deferred
                    return null;
                });
                Thread dispatcher = Thread.ofPlatform().unstarted(() -> owner.dispatch(second.execution));
                queue.held = dispatcher;
                CompletableFuture<Void> sent = new CompletableFuture<>();
                Thread.ofPlatform().start(() -> {
                    dispatcher.start();
                    try {
                        dispatcher.join(20_000);
                        sent.complete(null);
                    } catch (InterruptedException e) {
                        sent.completeExceptionally(e);
                    }
                });
                // The shared dispatch has offered, fenced and read parked (still parked): it is held here.
                assertTrue(queue.reached.await(10, TimeUnit.SECONDS), "the shared dispatch reads the indices");
            } finally {
                wakes.wakeAll(); // the batch ends: the owner wakes and takes the long task
            }
            assertTrue(first.started.await(10, TimeUnit.SECONDS), "the long task started");
            queue.resume.countDown();
            try {
                assertEquals(true, second.execution.get(5, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                fail("the shared task waits behind the long one; the sibling is " + workers.get(1).thread().getState()
                        + " (untimed park: nobody will wake it)");
            }
        } finally {
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }
}
