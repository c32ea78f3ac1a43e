package dev.moroutine.internal.dispatch;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.WorkerDiedException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The worker's own lifecycle, where a test must reach inside it. */
@Timeout(60)
class ThreadWorkerTest {

    static final Mo1<Integer, Integer> overflow = mo(ThreadWorkerTest::recurse);
    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, gate) -> {
        started.countDown();
        return gate.await(30, TimeUnit.SECONDS);
    });

    static final Mo1<AtomicInteger, Integer> count = mo(AtomicInteger::incrementAndGet);
    static final Mo1<Integer, Thread> here = mo(x -> Thread.currentThread());

    private static int recurse(int n) {
        return recurse(n + 1) + 1;
    }

    /** Issue 8 item 9: when no thread could replace a dead one, the worker never finished and close() waited forever. */
    @Test
    void aWorkerWhoseDeadThreadCannotBeReplacedStopsAndSaysWhy() throws Exception {
        OutOfMemoryError noThread = new OutOfMemoryError("unable to create native thread: possibly out of memory"
                + " or process/resource limits reached");
        AtomicInteger starts = new AtomicInteger();
        try (WorkerPool owner = (WorkerPool) Moroutine.workers(1)) {
            ThreadWorker worker = new ThreadWorker("test-pool-no-threads", 0, owner, thread -> {
                if (starts.getAndIncrement() > 0) {
                    throw noThread;
                }
                thread.start();
            });
            worker.start();
            deadThreadNotReplaced(worker, noThread);
        }
    }

    private static void deadThreadNotReplaced(ThreadWorker worker, OutOfMemoryError noThread) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        CompletableFuture<Boolean> first = submit(worker, hold.call(started, gate));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        CompletableFuture<Integer> dying = submit(worker, overflow.call(0));
        CompletableFuture<Integer> behind = submit(worker, square.call(3));
        gate.countDown();

        assertTrue(worker.awaitStopped(10, TimeUnit.SECONDS), "the worker stops instead of waiting for a thread forever");
        assertTrue(first.get());
        String why = "test-pool-no-threads stopped: its thread died and no new thread could be started (" + noThread + ")";
        WorkerDiedException died = assertInstanceOf(WorkerDiedException.class,
                assertThrows(CompletionException.class, dying::join).getCause());
        assertEquals("test-pool-no-threads died running task dev.moroutine.internal.dispatch.ThreadWorkerTest#overflow: "
                + "java.lang.StackOverflowError; no new thread could be started to replace it (" + noThread
                + "), so the worker stopped", died.getMessage());
        assertSame(noThread, died.getSuppressed()[0]);
        CancellationException cancelled = assertThrows(CancellationException.class, behind::join);
        assertEquals(why + " before this task started (task dev.moroutine.internal.dispatch.ThreadWorkerTest#square)",
                ((CancellationException) cancelled.getCause()).getMessage());
        RejectedExecutionException refused = assertThrows(RejectedExecutionException.class,
                () -> submit(worker, square.call(4)));
        assertEquals(why + "; task dev.moroutine.internal.dispatch.ThreadWorkerTest#square was not queued", refused.getMessage());
    }

    /**
     * A dedicated worker whose retired thread cannot be restarted: the restarting dispatch used to
     * leave its own task queued (to run, unasked, after a later call) and a call racing it stranded
     * with no thread until some later call came.
     */
    @Test
    void aFailedRestartFailsWhatIsQueuedAndTheNextCallTriesAgain() throws Exception {
        Duration before = IdleTimeout.get();
        IdleTimeout.set(Duration.ZERO);
        try {
            OutOfMemoryError noThread = new OutOfMemoryError("unable to create native thread");
            CountDownLatch restarting = new CountDownLatch(1);
            CountDownLatch racerQueued = new CountDownLatch(1);
            AtomicBoolean failNext = new AtomicBoolean();
            ThreadWorker worker = new ThreadWorker("test-dedicated-restart", 0, null, thread -> {
                if (failNext.getAndSet(false)) {
                    restarting.countDown();
                    try {
                        assertTrue(racerQueued.await(10, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    throw noThread;
                }
                thread.start();
            });
            worker.start();
            Thread first = submit(worker, here.call(0)).get(10, TimeUnit.SECONDS);
            first.join(10_000);
            assertFalse(first.isAlive(), "the idle thread retired");

            AtomicInteger runs = new AtomicInteger();
            failNext.set(true);
            CompletableFuture<Throwable> restarter = CompletableFuture.supplyAsync(() -> {
                try {
                    submit(worker, count.call(runs));
                    return null;
                } catch (Throwable thrown) {
                    return thrown;
                }
            }, command -> Thread.ofPlatform().start(command));
            assertTrue(restarting.await(10, TimeUnit.SECONDS));
            CompletableFuture<Integer> racer = submit(worker, square.call(3));
            racerQueued.countDown();

            assertSame(noThread, restarter.get(10, TimeUnit.SECONDS), "the dispatch that could not start a thread says why");
            CancellationException stranded = assertThrows(CancellationException.class,
                    () -> racer.get(10, TimeUnit.SECONDS), "a call racing the failed restart is failed, not left queued");
            assertEquals("test-dedicated-restart could not start a thread (" + noThread + "), so this task did not run;"
                    + " the next call tries again (task dev.moroutine.internal.dispatch.ThreadWorkerTest#square)",
                    ((CancellationException) stranded.getCause()).getMessage());
            Thread next = submit(worker, here.call(1)).get(10, TimeUnit.SECONDS);
            assertNotSame(first, next, "the next call started a thread");
            assertEquals(0, runs.get(), "the task whose dispatch threw never runs");
        } finally {
            IdleTimeout.set(before);
        }
    }

    /** A dedicated worker, which nobody can replace, used to stop for good when its dead thread could not be replaced. */
    @Test
    void aDedicatedWorkerWhoseDeadThreadCannotBeReplacedTriesAgainOnTheNextCall() throws Exception {
        IdleTimeout.get();
        OutOfMemoryError noThread = new OutOfMemoryError("unable to create native thread");
        AtomicBoolean failNext = new AtomicBoolean();
        ThreadWorker worker = new ThreadWorker("test-dedicated-no-replacement", 0, null, thread -> {
            if (failNext.getAndSet(false)) {
                throw noThread;
            }
            thread.start();
        });
        worker.start();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        CompletableFuture<Boolean> first = submit(worker, hold.call(started, gate));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        failNext.set(true);
        CompletableFuture<Integer> dying = submit(worker, overflow.call(0));
        CompletableFuture<Integer> behind = submit(worker, square.call(3));
        gate.countDown();

        assertTrue(first.get(10, TimeUnit.SECONDS));
        WorkerDiedException died = assertInstanceOf(WorkerDiedException.class,
                assertThrows(ExecutionException.class, () -> dying.get(10, TimeUnit.SECONDS)).getCause());
        assertEquals("test-dedicated-no-replacement died running task dev.moroutine.internal.dispatch.ThreadWorkerTest#overflow: "
                + "java.lang.StackOverflowError; no new thread could be started to replace it (" + noThread
                + "); the next call tries again", died.getMessage());
        assertSame(noThread, died.getSuppressed()[0]);
        CancellationException cancelled = assertThrows(CancellationException.class, () -> behind.get(10, TimeUnit.SECONDS));
        assertEquals("test-dedicated-no-replacement could not start a thread (" + noThread + "), so this task did not run;"
                + " the next call tries again (task dev.moroutine.internal.dispatch.ThreadWorkerTest#square)",
                ((CancellationException) cancelled.getCause()).getMessage());
        assertEquals(16, submit(worker, square.call(4)).get(10, TimeUnit.SECONDS),
                "the next call starts a thread");
    }

    /**
     * A new execution is queued by its field's default: cancelled with interrupt before its worker
     * takes it, it never runs and interrupts nobody, not the run ahead of it on that worker.
     */
    @Test
    void aQueuedExecutionCancelledWithInterruptNeverRunsAndInterruptsNobody() throws Exception {
        try (WorkerPool owner = (WorkerPool) Moroutine.workers(1)) {
            ThreadWorker worker = new ThreadWorker("test-queued-cancel", 0, owner);
            worker.start();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            CompletableFuture<Boolean> holding = submit(worker, hold.call(started, gate));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            AtomicInteger runs = new AtomicInteger();
            CompletableFuture<Integer> queued = submit(worker, count.call(runs));
            assertTrue(queued.cancel(true));
            gate.countDown();
            assertTrue(holding.get(10, TimeUnit.SECONDS), "the run ahead was not interrupted");
            assertEquals(1, submit(worker, count.call(runs)).get(10, TimeUnit.SECONDS), "the cancelled one never ran");
            worker.drain("test over");
            assertTrue(worker.awaitStopped(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Bursts offered after a pause of 0 to 64 µs meet the worker spinning (it looks at its next slot
     * only), giving up its spin, or parked: every task runs, once and in order, and none waits for
     * a wake-up that does not come.
     */
    @Test
    void tasksOfferedWhileTheWorkerSpinsOrParksAllRunOnce() throws Exception {
        try (Pool pool = Moroutine.workers(1)) {
            AtomicInteger runs = new AtomicInteger();
            int expected = 0;
            for (int round = 0; round < 10_000; round++) {
                long until = System.nanoTime() + (round % 65) * 1_000L;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait(); // a pause that lets the worker spin, give up, or park: nothing is awaited
                }
                CompletableFuture<Integer> last = null;
                for (int burst = 0; burst <= round % 3; burst++) {
                    last = pool.submit(count.call(runs));
                    expected++;
                }
                assertEquals(expected, last.get(10, TimeUnit.SECONDS), "round " + round);
            }
            assertEquals(expected, runs.get());
        }
    }

    /** Dispatches a task's execution straight to a worker, as a pool or a dedicated call does. */
    private static <R> CompletableFuture<R> submit(Worker worker, Task<R> task) {
        Execution<R> execution = new Execution<>(Call.of(task), null);
        worker.dispatch(execution);
        return execution;
    }
}
