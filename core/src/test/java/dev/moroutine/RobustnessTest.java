package dev.moroutine;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What users can do to a pool that must not break it: regressions from a review of the core. */
@Timeout(60)
class RobustnessTest {

    static final class BadCloser implements AutoCloseable {
        @Override
        public void close() {
            throw new AssertionError("close() bug");
        }
    }

    static final Mo0<BadCloser> badResource = mo(BadCloser::new);
    static final Mo1<BadCloser, String> useBad = mo(resource -> "used");
    static final Mo1<Integer, Integer> fib = mo(n -> n < 2 ? n : RobustnessTest.fib.call(n - 1).join() + 1);
    static final Mo2<Pool, Integer, Integer> runInside = mo((pool, x) -> pool.run(RobustnessTest.square.call(x)));
    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo1<Object, String> describe = mo(value -> value.getClass().getSimpleName());
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, gate) -> {
        started.countDown();
        return gate.await(30, TimeUnit.SECONDS);
    });

    @Test
    void aCachedValueWhoseCloseThrowsAnErrorDoesNotHangClose() {
        Pool pool = workers(1);
        assertEquals("used", pool.run(useBad.call(badResource.call())));
        pool.close(); // logs the failure, stops the worker anyway
        assertTrue(pool.isClosed());
    }

    @Test
    void anErrorFromASignalActionStillStopsThePoolAndIsRethrownAfterwards() {
        Pool pool = workers(2);
        AtomicInteger others = new AtomicInteger();
        pool.signal().onAbort(() -> {
            throw new AssertionError("action bug");
        });
        pool.signal().onAbort(others::incrementAndGet);
        AssertionError e = assertThrows(AssertionError.class, pool::close);
        assertEquals("action bug", e.getMessage());
        assertEquals(1, others.get(), "the other action still ran");
        pool.close(); // already closed: returns at once
        assertThrows(java.util.concurrent.RejectedExecutionException.class,
                () -> assign(pool.workers().get(0), square.call(2)).join());
    }

    @Test
    void aSignalActionMayCloseThePoolAgain() {
        Pool pool = workers(1);
        pool.signal().onAbort(pool::close);
        pool.close();
        assertTrue(pool.isClosed());
    }

    @Test
    void waitingForATaskQueuedOnYourOwnWorkerFailsInsteadOfDeadlocking() {
        TaskFailedException onDedicated = assertThrows(TaskFailedException.class, () -> fib.call(5).join());
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, onDedicated.getCause());
        assertTrue(e.getMessage().contains("it would wait for itself"), e.getMessage());

        try (Pool pool = workers(1)) {
            TaskFailedException inPool = assertThrows(TaskFailedException.class, () -> pool.run(runInside.call(pool, 3)));
            assertInstanceOf(IllegalStateException.class, inPool.getCause());
            assertEquals(16, pool.run(square.call(4)), "the pool still works");
        }
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(leastBusy()))) {
            // Least busy sends the inner task to the idle second worker, where it can run: no false alarm.
            assertEquals(9, pool.run(assign(pool.workers().get(0), runInside.call(pool, 3))));
        }
    }

    @Test
    void anIdleWorkerThatIsInterruptedParksInsteadOfSpinning() {
        try (Pool pool = workers(1)) {
            Thread worker = threadOf(pool.workers().get(0));
            awaitState(worker, Thread.State.WAITING);
            worker.interrupt();
            awaitState(worker, Thread.State.WAITING);
            assertEquals(4, pool.run(square.call(2)));
        }
    }

    @Test
    void aTimeoutOfCenturiesMeansWaitNotOverflow() {
        Pool pool = workers(1, PoolOptions.defaults().withShutdownTimeout(Duration.ofDays(365_000)));
        assertEquals(9, pool.run(square.call(3)));
        pool.close();
        assertTrue(pool.isClosed());
    }

    @Test
    void closingOnAnInterruptedThreadStopsAtOnceAndKeepsTheInterrupt() throws Exception {
        Pool pool = workers(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch neverOpened = new CountDownLatch(1);
        CompletableFuture<Boolean> running = pool.submit(hold.call(started, neverOpened));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        Thread.currentThread().interrupt();
        try {
            pool.close();
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
        assertThrows(CancellationException.class, running::join);
    }

    @Test
    void aTaskPassedAsAPlainValueStaysAValue() {
        Task<Integer> task = square.call(3);
        assertEquals("Call", describe.call((Object) task).join());
        assertEquals("Integer", describe.call(task).join(), "the Task overload makes it a task-arg");
    }

    private static void awaitState(Thread thread, Thread.State state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != state) {
            if (System.nanoTime() > deadline) {
                fail(thread.getName() + " stayed " + thread.getState() + " instead of " + state);
            }
            Thread.onSpinWait();
        }
    }
}
