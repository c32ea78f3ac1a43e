package dev.moroutine;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The executor view, held to what {@link ExecutorService} promises. */
@Timeout(60)
class ExecutorViewTest {

    static final Mo1<Integer, Integer> square = mo(x -> x * x);

    private static Set<Thread> threadsOf(Pool pool) {
        Set<Thread> threads = new HashSet<>();
        pool.workers().forEach(worker -> threads.add(threadOf(worker)));
        return threads;
    }

    /** A task that holds its worker until the gate opens; {@code started} counts down when it runs. */
    private static Runnable blocker(CountDownLatch started, CountDownLatch gate) {
        return () -> {
            started.countDown();
            try {
                assertTrue(gate.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        };
    }

    @Test
    void executeSubmitAndSupplyAsyncRunOnThePoolsWorkers() throws Exception {
        try (Pool pool = workers(2)) {
            ExecutorService executor = pool.asExecutorService();
            Set<Thread> workers = threadsOf(pool);

            LinkedBlockingQueue<Thread> ranOn = new LinkedBlockingQueue<>();
            executor.execute(() -> ranOn.add(Thread.currentThread()));
            assertTrue(workers.contains(ranOn.poll(10, TimeUnit.SECONDS)));

            assertEquals(42, executor.submit(() -> 6 * 7).get(10, TimeUnit.SECONDS));
            Runnable runnable = () -> ranOn.add(Thread.currentThread());
            assertNull(executor.submit(runnable).get(10, TimeUnit.SECONDS));
            assertTrue(workers.contains(ranOn.poll(10, TimeUnit.SECONDS)));
            assertEquals("done", executor.submit(() -> { }, "done").get(10, TimeUnit.SECONDS));

            CompletableFuture<Thread> supplied = CompletableFuture.supplyAsync(Thread::currentThread, executor);
            assertTrue(workers.contains(supplied.get(10, TimeUnit.SECONDS)));
            CompletableFuture<String> chain = CompletableFuture.supplyAsync(() -> 20, executor)
                    .thenApplyAsync(x -> x + 1, executor)
                    .thenCombineAsync(CompletableFuture.supplyAsync(() -> 2, executor), (a, b) -> a * b + "", executor);
            assertEquals("42", chain.get(10, TimeUnit.SECONDS));
            assertEquals(49, pool.run(square.call(7)), "the pool serves its moroutines beside the view");
        }
    }

    @Test
    void invokeAllReturnsEveryResultInOrderAndInvokeAnyTheFirstSuccess() throws Exception {
        try (Pool pool = workers(3)) {
            ExecutorService executor = pool.asExecutorService();
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                int n = i;
                tasks.add(() -> n * n);
            }
            List<Future<Integer>> all = executor.invokeAll(tasks);
            for (int i = 0; i < 50; i++) {
                assertTrue(all.get(i).isDone());
                assertEquals(i * i, all.get(i).get());
            }

            Callable<Integer> fails = () -> {
                throw new IllegalStateException("boom");
            };
            assertEquals(7, executor.invokeAny(List.of(fails, () -> 7, fails)));
            ExecutionException none = assertThrows(ExecutionException.class, () -> executor.invokeAny(List.of(fails, fails)));
            assertEquals("boom", none.getCause().getMessage());
        }
    }

    @Test
    void invokeAllWithATimeoutCancelsWhatDidNotFinish() throws Exception {
        try (Pool pool = workers(1)) {
            ExecutorService executor = pool.asExecutorService();
            CountDownLatch gate = new CountDownLatch(1);
            AtomicBoolean ranLate = new AtomicBoolean();
            List<Callable<String>> tasks = List.of(
                    () -> "quick",
                    () -> {
                        gate.await(); // interrupted by the cancellation
                        return "never";
                    },
                    () -> {
                        ranLate.set(true);
                        return "behind";
                    });
            List<Future<String>> futures = executor.invokeAll(tasks, 500, TimeUnit.MILLISECONDS);
            assertEquals("quick", futures.get(0).get());
            assertTrue(futures.get(1).isCancelled());
            assertTrue(futures.get(2).isCancelled());
            executor.shutdown();
            assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS), "the cancelled task was interrupted");
            assertFalse(ranLate.get(), "a cancelled task does not run");
        }
    }

    @Test
    void shutdownRejectsNewTasksRunsQueuedOnesAndLeavesThePoolOpen() throws Exception {
        try (Pool pool = workers(1)) {
            ExecutorService executor = pool.asExecutorService();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            executor.execute(blocker(started, gate));
            AtomicInteger ran = new AtomicInteger();
            List<Future<?>> queued = new ArrayList<>();
            for (int i = 0; i < 20; i++) queued.add(executor.submit(ran::incrementAndGet));
            assertTrue(started.await(10, TimeUnit.SECONDS));

            executor.shutdown();
            executor.shutdown(); // idempotent
            assertTrue(executor.isShutdown());
            assertFalse(executor.isTerminated(), "tasks are still queued");
            assertFalse(executor.awaitTermination(20, TimeUnit.MILLISECONDS));
            RejectedExecutionException rejected = assertThrows(RejectedExecutionException.class, () -> executor.execute(ran::incrementAndGet));
            assertTrue(rejected.getMessage().contains("cannot run"), rejected.getMessage());
            assertTrue(rejected.getMessage().contains("it was shut down; execute tasks before shutdown()"), rejected.getMessage());
            assertThrows(RejectedExecutionException.class, () -> executor.submit(() -> 1));

            gate.countDown();
            assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
            assertTrue(executor.isTerminated());
            assertEquals(20, ran.get(), "every accepted task ran");
            for (Future<?> f : queued) assertTrue(f.isDone() && !f.isCancelled());

            assertFalse(pool.isClosed(), "shutting the view down leaves the pool open");
            assertEquals(9, pool.run(square.call(3)));
            assertEquals(5, pool.asExecutorService().submit(() -> 5).get(10, TimeUnit.SECONDS), "a new view works");
        }
    }

    @Test
    void shutdownWithNothingInFlightTerminatesAtOnce() throws Exception {
        try (Pool pool = workers(1)) {
            ExecutorService executor = pool.asExecutorService();
            assertFalse(executor.isShutdown());
            assertFalse(executor.isTerminated());
            executor.shutdown();
            assertTrue(executor.isTerminated());
            assertTrue(executor.awaitTermination(0, TimeUnit.NANOSECONDS));
        }
    }

    @Test
    void shutdownNowInterruptsTheRunningTaskAndReturnsTheOnesThatNeverStarted() throws Exception {
        try (Pool pool = workers(1)) {
            ExecutorService executor = pool.asExecutorService();
            CountDownLatch started = new CountDownLatch(1);
            AtomicReference<Throwable> interrupted = new AtomicReference<>();
            executor.execute(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.set(e);
                }
            });
            AtomicInteger ran = new AtomicInteger();
            List<Runnable> queued = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                Runnable task = ran::incrementAndGet;
                queued.add(task);
                executor.execute(task);
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));

            List<Runnable> neverStarted = executor.shutdownNow();

            assertEquals(new HashSet<>(queued), new HashSet<>(neverStarted));
            assertEquals(10, neverStarted.size());
            assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
            assertInstanceOf(InterruptedException.class, interrupted.get());
            assertFalse(pool.run(isInterrupted.call()), "the interrupt does not reach the worker's next task");
            assertEquals(0, ran.get(), "taken-back tasks are skipped by their worker");
            assertTrue(executor.shutdownNow().isEmpty());
        }
    }

    static final Mo0<Boolean> isInterrupted = mo(() -> Thread.currentThread().isInterrupted());

    /** A task ending just as shutdownNow() interrupts it: the interrupt must never hit the task queued behind it. */
    @Test
    void anInterruptFromShutdownNowNeverReachesTheNextTask() throws Exception {
        try (Pool pool = workers(1)) {
            for (int round = 0; round < Stress.scaled(5_000); round++) {
                ExecutorService executor = pool.asExecutorService();
                CountDownLatch started = new CountDownLatch(1);
                long busyNanos = (round % 100) * 1_000L; // ends somewhere around the moment shutdownNow() acts
                executor.execute(() -> {
                    long end = System.nanoTime() + busyNanos;
                    started.countDown();
                    while (System.nanoTime() < end) Thread.onSpinWait();
                });
                assertTrue(started.await(10, TimeUnit.SECONDS));
                executor.shutdownNow();
                assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
                assertFalse(pool.run(isInterrupted.call()), "round " + round);
            }
        }
    }

    @Test
    void anExceptionFromAnExecutedTaskGoesToTheWorkersUncaughtHandlerAndTheWorkerGoesOn() throws Exception {
        try (Pool pool = workers(2)) {
            Set<Thread> before = threadsOf(pool);
            LinkedBlockingQueue<Throwable> uncaught = new LinkedBlockingQueue<>();
            Set<Thread> reportedOn = ConcurrentHashMap.newKeySet();
            for (WorkerHandle worker : pool.workers()) {
                threadOf(worker).setUncaughtExceptionHandler((thread, e) -> {
                    reportedOn.add(thread);
                    uncaught.add(e);
                });
            }
            ExecutorService executor = pool.asExecutorService();
            executor.execute(() -> {
                throw new IllegalStateException("from execute");
            });
            assertEquals("from execute", uncaught.poll(10, TimeUnit.SECONDS).getMessage());
            assertTrue(threadsOf(pool).containsAll(reportedOn));

            ExecutionException viaFuture = assertThrows(ExecutionException.class, () -> executor.submit(() -> {
                throw new IllegalArgumentException("from submit");
            }).get(10, TimeUnit.SECONDS));
            assertEquals("from submit", viaFuture.getCause().getMessage());
            CompletableFuture<Integer> supplied = CompletableFuture.supplyAsync(() -> {
                throw new UnsupportedOperationException("from supplyAsync");
            }, executor);
            ExecutionException viaSupply = assertThrows(ExecutionException.class, () -> supplied.get(10, TimeUnit.SECONDS));
            assertEquals("from supplyAsync", viaSupply.getCause().getMessage());

            assertEquals(3, executor.submit(() -> 3).get(10, TimeUnit.SECONDS));
            assertEquals(before, threadsOf(pool), "no worker was replaced");
            assertTrue(uncaught.isEmpty(), "futures keep their failures: " + uncaught);
        }
    }

    @Test
    void closingThePoolShutsTheViewDownAfterItsQueuedTasksRan() throws Exception {
        Pool pool = workers(1);
        ExecutorService executor = pool.asExecutorService();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        executor.execute(blocker(started, gate));
        Future<Integer> queued = executor.submit(() -> 8);
        assertTrue(started.await(10, TimeUnit.SECONDS));
        CountDownLatch closing = new CountDownLatch(1);
        pool.signal().onAbort(closing::countDown);
        Thread closer = Thread.ofPlatform().start(pool::close);
        assertTrue(closing.await(10, TimeUnit.SECONDS));
        assertTrue(executor.isShutdown());
        assertFalse(executor.isTerminated(), "its tasks have not run yet");
        RejectedExecutionException rejected = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> { }));
        assertTrue(rejected.getMessage().contains("its pool is closed"), rejected.getMessage());
        gate.countDown();
        assertEquals(8, queued.get(10, TimeUnit.SECONDS), "a graceful close runs what was accepted");
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
        closer.join(10_000);
        assertFalse(closer.isAlive());

        ExecutorService late = pool.asExecutorService();
        assertTrue(late.isShutdown() && late.isTerminated(), "a view of a closed pool is terminated from the start");
        assertThrows(RejectedExecutionException.class, () -> late.submit(() -> 1));
    }

    @Test
    void terminatingThePoolCancelsTheFuturesOfTasksThatNeverStarted() throws Exception {
        Pool pool = workers(1);
        ExecutorService executor = pool.asExecutorService();
        CountDownLatch started = new CountDownLatch(1);
        Future<?> running = executor.submit(() -> {
            started.countDown();
            new CountDownLatch(1).await();
            return null;
        });
        Future<Integer> queued = executor.submit(() -> 1);
        assertTrue(started.await(10, TimeUnit.SECONDS));
        pool.terminate();
        assertThrows(CancellationException.class, () -> queued.get(10, TimeUnit.SECONDS));
        ExecutionException interrupted = assertThrows(ExecutionException.class, () -> running.get(10, TimeUnit.SECONDS));
        assertInstanceOf(InterruptedException.class, interrupted.getCause());
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
        assertTrue(executor.isShutdown());
    }

    /** The JDK 19+ default: shut down, wait for the tasks; the pool stays open. */
    @Test
    void closeWaitsForTheViewsTasksOnly() throws Exception {
        try (Pool pool = workers(2)) {
            AtomicInteger ran = new AtomicInteger();
            try (ExecutorService executor = pool.asExecutorService()) {
                for (int i = 0; i < 100; i++) executor.execute(ran::incrementAndGet);
            }
            assertEquals(100, ran.get());
            assertFalse(pool.isClosed());
        }
    }

    @Test
    void badInputsAndTheBalancersView() throws Exception {
        List<Task<?>> seen = new ArrayList<>();
        Balancer recording = (workers, task) -> {
            synchronized (seen) {
                seen.add(task);
            }
            return workers.get(0);
        };
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(recording))) {
            ExecutorService executor = pool.asExecutorService();
            assertEquals("command", assertThrows(NullPointerException.class, () -> executor.execute(null)).getMessage());
            assertThrows(NullPointerException.class, () -> executor.submit((Callable<?>) null));
            assertEquals(1, executor.submit(() -> 1).get(10, TimeUnit.SECONDS));
            synchronized (seen) {
                assertEquals(1, seen.size(), "view tasks go through the balancer");
                assertFalse(isTask(square, seen.get(0)));
                assertTrue(seen.get(0).toString().contains("ExecutorView#RUN"), seen.get(0).toString());
            }
            assertTrue(executor.toString().startsWith("ExecutorService view of "), executor.toString());
        }
        Balancer failing = (workers, task) -> {
            throw new IllegalStateException("unknown task " + task);
        };
        try (Pool pool = workers(1, PoolOptions.defaults().withBalancer(failing))) {
            ExecutorService executor = pool.asExecutorService();
            assertThrows(IllegalStateException.class, () -> executor.execute(() -> { }));
            executor.shutdown();
            assertTrue(executor.isTerminated(), "a task the balancer refused is not left counted");
        }
    }

    /** Many threads execute while another shuts down: every accepted task runs, exactly once. */
    @Test
    void everyAcceptedTaskRunsExactlyOnceWhileShutdownRacesWithExecute() throws Exception {
        try (Pool pool = workers(3, PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(30)))) {
            for (int round = 0; round < Stress.scaled(40); round++) {
                ExecutorService executor = pool.asExecutorService();
                AtomicInteger accepted = new AtomicInteger();
                AtomicInteger ran = new AtomicInteger();
                int threads = 4;
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> submitters = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    submitters.add(Thread.ofPlatform().start(() -> {
                        try {
                            go.await();
                            for (int i = 0; i < 5_000; i++) {
                                executor.execute(ran::incrementAndGet);
                                accepted.incrementAndGet();
                            }
                        } catch (RejectedExecutionException | InterruptedException expected) {
                            // shut down under it
                        }
                    }));
                }
                go.countDown();
                while (accepted.get() < 100 * (round % 20 + 1)) Thread.onSpinWait();
                if (round % 2 == 0) {
                    executor.shutdown();
                    for (Thread t : submitters) t.join(30_000);
                    assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
                    assertEquals(accepted.get(), ran.get(), "round " + round);
                } else {
                    int returned = executor.shutdownNow().size();
                    for (Thread t : submitters) t.join(30_000);
                    assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
                    assertEquals(accepted.get(), ran.get() + returned, "round " + round);
                }
                assertTrue(executor.isTerminated());
            }
        }
    }

    /** Many threads, no shutdown until the end: exact totals through supplyAsync and invokeAll. */
    @Test
    void stressExactCounts() throws Exception {
        try (Pool pool = workers(4)) {
            ExecutorService executor = pool.asExecutorService();
            int perThread = Stress.scaled(5_000);
            int threads = 4;
            AtomicLong sum = new AtomicLong();
            List<Thread> callers = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                callers.add(Thread.ofPlatform().start(() -> {
                    try {
                        List<CompletableFuture<Integer>> futures = new ArrayList<>();
                        for (int i = 0; i < perThread; i++) {
                            int n = i;
                            futures.add(CompletableFuture.supplyAsync(() -> n, executor));
                        }
                        for (CompletableFuture<Integer> f : futures) sum.addAndGet(f.get(30, TimeUnit.SECONDS));
                        List<Callable<Integer>> ones = new ArrayList<>();
                        for (int i = 0; i < 100; i++) ones.add(() -> 1);
                        for (Future<Integer> f : executor.invokeAll(ones)) sum.addAndGet(f.get());
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }));
            }
            for (Thread t : callers) t.join(60_000);
            assertEquals(List.of(), failures);
            executor.shutdown();
            assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
            long expected = threads * ((long) perThread * (perThread - 1) / 2 + 100);
            assertEquals(expected, sum.get());
        }
    }
}
