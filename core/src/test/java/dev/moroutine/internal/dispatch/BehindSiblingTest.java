package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import dev.moroutine.WorkerHandle;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When an idle thread takes from a sibling: one that is stuck, and also one that gets through its
 * tasks but has more queued than it finishes in a look interval (a batch of CPU-bound tasks of a few
 * microseconds to a few hundred, where the idle thread used to wait for the busy one to finish).
 */
@Timeout(60)
class BehindSiblingTest {

    /** A task that computes for about {@code nanos} and counts where it ran. */
    private static final class Spin extends Invocation {
        private final long nanos;
        private final Set<Spin> ran;
        final AtomicInteger runs = new AtomicInteger();
        volatile Thread thread;

        Spin(long nanos, Set<Spin> ran) {
            super(new Object[0]);
            this.nanos = nanos;
            this.ran = ran;
        }

        @Override
        public String id() {
            return "test#spin";
        }

        @Override
        protected Object invoke(Object[] resolved) {
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            runs.incrementAndGet();
            thread = Thread.currentThread();
            ran.add(this);
            return null;
        }
    }

    /** A shared task of about 5 µs that, while {@code refill} is set, dispatches another like it to {@code owner} as it ends. */
    private static final class Refilling extends Invocation {
        private final ThreadWorker owner;
        private final AtomicBoolean refill;

        Refilling(ThreadWorker owner, AtomicBoolean refill) {
            super(new Object[0]);
            this.owner = owner;
            this.refill = refill;
        }

        @Override
        public String id() {
            return "test#refilling";
        }

        @Override
        protected Object invoke(Object[] resolved) {
            long end = System.nanoTime() + 5_000;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            if (refill.get()) {
                owner.dispatch(new Execution<>(new Refilling(owner, refill), null));
            }
            return null;
        }
    }

    @ParameterizedTest(name = "previous look {0}, completed {1}, unfinished {2}, {3} ns since: {4}")
    @CsvSource({
        "0, 0, 5, 20000, false", // never looked: no pace to judge by
        "6, 3, 5, 20000, false", // had nothing unfinished at the previous look: nothing to judge by
        "7, 3, 0, 20000, false", // nothing unfinished now
        "7, 3, 1, 20000, true", // finished nothing since: stuck
        "7, 3, 1, 1000000, true",
        "7, 4, 2, 20000, true", // one finished per interval, two left
        "7, 4, 1, 20000, false", // one finished per interval, one left: done by the next look
        "7, 7, 40, 20000, true", // four per interval, forty left
        "7, 7, 4, 20000, false",
        "7, 103, 150, 20000, true", // a hundred per interval, a hundred and fifty left
        "7, 103, 90, 20000, false", // a hundred per interval, ninety left: short tasks stay
        "7, 103, 150, 10000, false", // two hundred per interval
        "7, 103, 90, 40000, true", // fifty per interval
    })
    void aSiblingIsBehindWhenItsWorkWouldOutlastALookInterval(long before, long completed, long unfinished, long sinceLook,
            boolean behind) {
        assertEquals(behind, ThreadWorker.behind(before, completed, unfinished, sinceLook));
    }

    /**
     * 20,000 shared tasks of about 5 µs each queued at one worker of two, which then gets through
     * them while the other one is busy; then the other one goes idle, and takes some of the newest
     * (those its sibling's shared slots hold), and each task still runs exactly once. (The criterion
     * itself is tested above: the idle thread took from a sibling that lost its core under the
     * old one too, so how many it takes here tells them apart on a quiet machine only.)
     */
    @Test
    void anIdleWorkerTakesFromASiblingWithManyShortTasksQueued() throws Exception {
        CountDownLatch releaseOwner = new CountDownLatch(1);
        CountDownLatch releaseSibling = new CountDownLatch(1);
        DeferredWakesTest.Held ownerLong = new DeferredWakesTest.Held(releaseOwner);
        DeferredWakesTest.Held siblingLong = new DeferredWakesTest.Held(releaseSibling);
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation instanceof Spin);
        List<ThreadWorker> workers = group.makeWorkers("test-behind-", 2, 0, new MpscUnboundedAtomicArrayQueue<>(1024));
        workers.forEach(ThreadWorker::start);
        try {
            workers.get(0).dispatch(ownerLong.execution);
            workers.get(1).dispatch(siblingLong.execution);
            assertTrue(ownerLong.started.await(10, TimeUnit.SECONDS) && siblingLong.started.await(10, TimeUnit.SECONDS));
            Set<Spin> ran = ConcurrentHashMap.newKeySet();
            List<Spin> tasks = new ArrayList<>();
            List<Execution<Object>> executions = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                Spin task = new Spin(5_000, ran);
                tasks.add(task);
                Execution<Object> execution = new Execution<>(task, null);
                executions.add(execution);
                workers.get(0).dispatch(execution);
            }
            releaseOwner.countDown();
            executions.get(99).get(30, TimeUnit.SECONDS); // the owner is getting through them
            releaseSibling.countDown();
            for (Execution<Object> execution : executions) {
                execution.get(30, TimeUnit.SECONDS);
            }
            assertEquals(tasks.size(), ran.size(), "every task ran");
            int elsewhere = 0;
            for (Spin task : tasks) {
                assertEquals(1, task.runs.get(), "each task ran once");
                elsewhere += task.thread == workers.get(1).thread() ? 1 : 0;
            }
            assertTrue(elsewhere > 0, "the idle worker took none of the 20,000 queued at its busy sibling");
        } finally {
            releaseOwner.countDown();
            releaseSibling.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }

    /**
     * Found by review: an idle thread took from the first sibling it judged behind, so one kept
     * behind by a steady stream of short tasks had it busy for good while a shared task waited at a
     * later sibling stuck in a long one, for as long as that one ran.
     */
    @RepeatedTest(30)
    void aSiblingStuckInALongTaskGoesBeforeOneThatIsOnlySlow() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredWakesTest.Held stuck = new DeferredWakesTest.Held(release);
        AtomicBoolean refill = new AtomicBoolean(true);
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation instanceof Spin || invocation instanceof Refilling);
        List<ThreadWorker> workers = group.makeWorkers("test-stuck-", 3, 0, new MpscUnboundedAtomicArrayQueue<>(1024));
        workers.forEach(ThreadWorker::start);
        try {
            workers.get(2).dispatch(stuck.execution);
            assertTrue(stuck.started.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < 100; i++) {
                workers.get(1).dispatch(new Execution<>(new Refilling(workers.get(1), refill), null));
            }
            Spin waiting = new Spin(5_000, ConcurrentHashMap.newKeySet());
            Execution<Object> behindTheStuck = new Execution<>(waiting, null);
            workers.get(2).dispatch(behindTheStuck);
            behindTheStuck.get(5, TimeUnit.SECONDS);
            assertNotSame(workers.get(2).thread(), waiting.thread, "a sibling ran it");
        } finally {
            refill.set(false);
            release.countDown();
            workers.forEach(worker -> worker.forceStop("test over"));
        }
    }
}
