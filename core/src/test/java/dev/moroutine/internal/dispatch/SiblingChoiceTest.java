package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.WorkerHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * Which sibling an idle thread takes from (found by review of 2f1a957). Worker 0 is never started:
 * the test thread plays its thread and calls its takeFromSibling itself, so each look sees exactly the progress the test lets the siblings make
 * (each sibling's tasks take a permit each, released one at a time).
 */
@Timeout(60)
class SiblingChoiceTest {

    /** A task that ends when it gets a permit; shared or not as the group's predicate says. */
    static class Gated extends Invocation {
        private final Semaphore permits;

        Gated(Semaphore permits) {
            super(new Object[0]);
            this.permits = permits;
        }

        @Override
        public String id() {
            return "test#gated";
        }

        @Override
        protected Object invoke(Object[] resolved) throws InterruptedException {
            return permits.tryAcquire(30, TimeUnit.SECONDS);
        }
    }

    /** Like Gated, but the group does not share it (an assigned task, say). */
    static final class Unshared extends Gated {
        Unshared(Semaphore permits) {
            super(permits);
        }
    }

    private static final Method TAKE;
    private static final Field TAKEN_BY_SIBLINGS;

    static {
        try {
            TAKE = ThreadWorker.class.getDeclaredMethod("takeFromSibling");
            TAKE.setAccessible(true);
            TAKEN_BY_SIBLINGS = ThreadWorker.class.getDeclaredField("takenBySiblings");
            TAKEN_BY_SIBLINGS.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One look of worker 0, at least a look interval after the previous one. */
    private static Execution<?> look(ThreadWorker taker, long[] lastAt) throws Exception {
        while (System.nanoTime() - lastAt[0] < 25_000) {
            Thread.onSpinWait(); // the look interval, not a wait for another thread
        }
        Execution<?> taken = (Execution<?>) TAKE.invoke(taker);
        // Timed from the look's end: the worker timed it from within, so the next look is surely past the
        // interval, however long a (first, reflective) call took.
        lastAt[0] = System.nanoTime();
        return taken;
    }

    private static List<Execution<Object>> send(ThreadWorker worker, int count, java.util.function.Supplier<Invocation> task) {
        List<Execution<Object>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Execution<Object> execution = new Execution<>(task.get(), null);
            sent.add(execution);
            worker.dispatch(execution);
        }
        return sent;
    }

    /**
     * A slow sibling (1) whose queued work is all unshared is the "laggard", tried alone: it gives
     * nothing, and the slow sibling 2 behind it, with 50 shared tasks waiting, is never tried. Before
     * 2f1a957 the loop went on to sibling 2 when sibling 1 gave nothing.
     */
    @RepeatedTest(20)
    void aLaggardWithNothingSharedDoesNotHideTheNextSlowSibling() throws Exception {
        Semaphore permits1 = new Semaphore(0);
        Semaphore permits2 = new Semaphore(0);
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation instanceof Gated && !(invocation instanceof Unshared));
        List<ThreadWorker> workers = group.makeWorkers("review-laggard-", 3, 0, new MpscUnboundedAtomicArrayQueue<>(1024));
        try {
            // Sent before the threads start: neither is ever idle, so neither takes from the other.
            List<Execution<Object>> at1 = send(workers.get(1), 50, () -> new Unshared(permits1));
            List<Execution<Object>> at2 = send(workers.get(2), 50, () -> new Gated(permits2));
            workers.get(1).start();
            workers.get(2).start();
            long[] lastAt = {System.nanoTime()};
            assertNull(look(workers.get(0), lastAt), "first look: no pace to judge by");
            permits1.release();
            permits2.release();
            at1.get(0).get(10, TimeUnit.SECONDS);
            at2.get(0).get(10, TimeUnit.SECONDS);
            Execution<?> taken = look(workers.get(0), lastAt); // both behind, neither stuck
            assertNotNull(taken, "sibling 2 is behind with 49 shared tasks waiting, but the idle worker took none");
            assertTrue(at2.contains(taken));
        } finally {
            permits1.release(1000);
            permits2.release(1000);
            workers.get(1).forceStop("test over");
            workers.get(2).forceStop("test over");
        }
    }

    /**
     * The taker's own take from a stuck sibling counts there as finished (takenBySiblings), so at the
     * next look the stuck sibling "finished one" and is judged only slow: the slow sibling listed
     * first is taken from instead, while 9 shared tasks still wait behind the stuck one's long task.
     */
    @RepeatedTest(20)
    void aTakeFromAStuckSiblingDoesNotMakeItLookMerelySlow() throws Exception {
        Semaphore permits1 = new Semaphore(0);
        Semaphore permits2 = new Semaphore(0);
        CountDownLatch release = new CountDownLatch(1);
        DeferredWakesTest.Held stuck = new DeferredWakesTest.Held(release);
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, true, null, invocation -> invocation instanceof Gated);
        List<ThreadWorker> workers = group.makeWorkers("review-stuck-", 3, 0, new MpscUnboundedAtomicArrayQueue<>(1024));
        try {
            // Sent before the threads start: neither is ever idle, so neither takes from the other.
            List<Execution<Object>> at1 = send(workers.get(1), 50, () -> new Gated(permits1));
            workers.get(2).dispatch(stuck.execution);
            List<Execution<Object>> at2 = send(workers.get(2), 10, () -> new Gated(permits2));
            workers.get(1).start();
            workers.get(2).start();
            assertTrue(stuck.started.await(10, TimeUnit.SECONDS));
            long[] lastAt = {System.nanoTime()};
            assertNull(look(workers.get(0), lastAt), "first look: no pace to judge by");
            permits1.release();
            at1.get(0).get(10, TimeUnit.SECONDS);
            Execution<?> first = look(workers.get(0), lastAt);
            assertTrue(at2.contains(first), "the stuck sibling goes first (what 2f1a957 fixed): " + first);
            // What the taker's thread does as it runs it (countThere): count it at its owner.
            ((PaddedCounter) TAKEN_BY_SIBLINGS.get(workers.get(2))).getAndAdd(1L);
            first.cancel("run by the test's taker");
            permits1.release();
            at1.get(1).get(10, TimeUnit.SECONDS);
            Execution<?> second = look(workers.get(0), lastAt); // sibling 2's thread is still in its long task
            assertTrue(at2.contains(second), "sibling 2 is still stuck with 9 shared tasks waiting, but the idle worker took "
                    + (at1.contains(second) ? "one of the slow sibling 1's" : String.valueOf(second)));
        } finally {
            release.countDown();
            permits1.release(1000);
            permits2.release(1000);
            workers.get(1).forceStop("test over");
            workers.get(2).forceStop("test over");
        }
    }
}
