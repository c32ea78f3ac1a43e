package dev.moroutine;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/** Corners of the {@link ExecutorService} contract that the view keeps when the pool stops its tasks from outside. */
@Timeout(60)
class ExecutorViewContractTest {

    /**
     * A task interrupted from outside, that keeps running for a while after the interrupt (finishing
     * its work, cleaning up): {@code interrupted} counts down when the interrupt reached it,
     * {@code finished} is set when it returns.
     */
    private static Runnable outlivesItsInterrupt(CountDownLatch interrupted, CountDownLatch gate, AtomicBoolean finished) {
        return () -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
            boolean open = false;
            while (!open) {
                try {
                    open = gate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    // still cleaning up
                }
            }
            finished.set(true);
        };
    }

    /** The pool's task timeout completes the task's execution at once; the view must still wait for the task to return. */
    @RepeatedTest(5)
    void aViewTerminatesOnlyAfterATimedOutTaskHasReturned() throws Exception {
        try (Pool pool = workers(1, PoolOptions.defaults().withTaskTimeout(Duration.ofMillis(20)))) {
            ExecutorService executor = pool.asExecutorService();
            CountDownLatch interrupted = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            AtomicBoolean finished = new AtomicBoolean();
            executor.execute(outlivesItsInterrupt(interrupted, gate, finished));
            try {
                assertTrue(interrupted.await(10, TimeUnit.SECONDS));
                executor.shutdown();
                assertFalse(executor.isTerminated(), "its task is still running");
                assertFalse(executor.awaitTermination(0, TimeUnit.NANOSECONDS));
            } finally {
                gate.countDown();
            }
            assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
            assertTrue(finished.get(), "awaitTermination returned only after the task did");
        }
    }

    /** The pool's terminate() fails the running execution at once and does not wait; the view's awaitTermination does. */
    @RepeatedTest(5)
    void aViewOfATerminatedPoolTerminatesOnlyAfterItsRunningTaskHasReturned() throws Exception {
        Pool pool = workers(1);
        ExecutorService executor = pool.asExecutorService();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        Runnable task = outlivesItsInterrupt(interrupted, gate, finished);
        executor.execute(() -> {
            started.countDown();
            task.run();
        });
        try {
            assertTrue(started.await(10, TimeUnit.SECONDS));
            pool.terminate();
            assertTrue(interrupted.await(10, TimeUnit.SECONDS));
            assertTrue(executor.isShutdown());
            assertFalse(executor.isTerminated(), "its task is still running");
        } finally {
            gate.countDown();
        }
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
        assertTrue(finished.get(), "awaitTermination returned only after the task did");
    }

    /**
     * shutdownNow() takes back a task whose execute() is still placing it, then that placement fails
     * (here because the pool closed meanwhile): the task was returned as never started, so execute()
     * must not also refuse it, or its caller would run it a second time elsewhere.
     */
    @RepeatedTest(5)
    void aTaskReturnedByShutdownNowIsNotAlsoRefusedByExecute() throws Exception {
        CountDownLatch inBalancer = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Balancer stalls = (workers, task) -> {
            inBalancer.countDown();
            try {
                assertTrue(release.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return workers.get(0);
        };
        Pool pool = workers(1, PoolOptions.defaults().withBalancer(stalls));
        ExecutorService executor = pool.asExecutorService();
        Runnable task = () -> { };
        CompletableFuture<Throwable> executed = new CompletableFuture<>();
        Thread submitter = Thread.ofPlatform().start(() -> {
            try {
                executor.execute(task);
                executed.complete(null);
            } catch (Throwable e) {
                executed.complete(e);
            }
        });
        try {
            assertTrue(inBalancer.await(10, TimeUnit.SECONDS));
            assertEquals(List.of(task), executor.shutdownNow());
            CountDownLatch closing = new CountDownLatch(1);
            pool.signal().onAbort(closing::countDown);
            Thread closer = Thread.ofPlatform().start(pool::close);
            assertTrue(closing.await(10, TimeUnit.SECONDS), "the pool's workers are draining");
            release.countDown();
            assertNull(executed.get(10, TimeUnit.SECONDS), "execute() of a task that shutdownNow() returned");
            closer.join(10_000);
            assertFalse(closer.isAlive());
        } finally {
            release.countDown();
            submitter.join(10_000);
            pool.close();
        }
        assertTrue(executor.isTerminated());
    }

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    /**
     * A fatal error from a Runnable given to execute() ends its worker thread (which is replaced);
     * nobody holds a future for it, so the thread's uncaught-exception handler is the only place it
     * can be reported, as for any other exception, and as a ThreadPoolExecutor's dying thread does.
     */
    @RepeatedTest(3)
    void aFatalErrorFromAnExecutedTaskGoesToTheUncaughtHandlerToo() throws Exception {
        try (Pool pool = workers(1)) {
            Thread before = threadOf(pool.workers().get(0));
            LinkedBlockingQueue<Throwable> uncaught = new LinkedBlockingQueue<>();
            before.setUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
            ExecutorService executor = pool.asExecutorService();
            executor.execute(() -> recurse(0));
            assertInstanceOf(StackOverflowError.class, uncaught.poll(10, TimeUnit.SECONDS));
            assertEquals(7, executor.submit(() -> 7).get(10, TimeUnit.SECONDS), "the worker was replaced");
            executor.shutdown();
            assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
            assertTrue(uncaught.isEmpty(), "reported once: " + uncaught);
        }
    }

    /** As the pool's own close() on a worker: a view's close() in one of its own tasks would wait for itself forever. */
    @RepeatedTest(3)
    void closeFromOneOfTheViewsOwnTasksSaysItWouldWaitForItself() throws Exception {
        // A shutdown timeout, so that a close() that does wait for itself fails this test instead of hanging it.
        try (Pool pool = workers(2, PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(1)))) {
            ExecutorService executor = pool.asExecutorService();
            Future<?> closing = executor.submit(() -> {
                executor.close();
                return null;
            });
            ExecutionException e = assertThrows(ExecutionException.class, () -> closing.get(10, TimeUnit.SECONDS));
            IllegalStateException refused = assertInstanceOf(IllegalStateException.class, e.getCause());
            assertTrue(refused.getMessage().contains("which would wait for itself"), refused.getMessage());
            assertTrue(refused.getMessage().contains("close it from outside its tasks"), refused.getMessage());
            assertFalse(executor.isShutdown(), "it refused before doing anything");
            executor.close();
            assertTrue(executor.isTerminated());
        }
    }
}
