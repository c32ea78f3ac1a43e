package dev.moroutine;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PoolTest {

    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo0<Thread> whereAmI = mo(Thread::currentThread);
    static final Mo2<CountDownLatch, CountDownLatch, String> waitFor = mo((started, gate) -> {
        started.countDown();
        gate.await();
        return "released";
    });
    static final Mo1<AtomicBoolean, String> ignoreInterrupts = mo(stop -> {
        while (!stop.get()) {
            Thread.onSpinWait();
        }
        return "stopped";
    });
    static final Mo1<Integer, Integer> failIfOdd = mo(x -> {
        if (x % 2 != 0) throw new IllegalArgumentException("odd: " + x);
        return x;
    });
    static final Mo1<Signal, Boolean> seesSignal = mo(Signal::aborted);
    static final Mo2<Signal, CountDownLatch, String> untilAborted = mo((signal, started) -> {
        CountDownLatch aborted = new CountDownLatch(1);
        Signal.Registration registration = signal.onAbort(aborted::countDown);
        try {
            started.countDown();
            aborted.await();
        } finally {
            registration.close();
        }
        return signal.reason();
    });
    static final Mo1<Pool, String> closeFromInside = mo(pool -> {
        pool.close();
        return "closed";
    });

    @Test
    void runSubmitAndRunAll() throws Exception {
        try (Pool pool = workers(2)) {
            assertEquals(49, pool.run(square.call(7)));
            assertEquals(64, pool.submit(square.call(8)).get(10, TimeUnit.SECONDS));
            List<Task<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < 100; i++) tasks.add(square.call(i));
            List<Integer> results = pool.runAll(tasks);
            for (int i = 0; i < 100; i++) assertEquals(i * i, results.get(i));
            assertEquals(2, pool.workers().size());
            assertFalse(pool.isClosed());
        }
    }

    @Test
    void runAllWaitsForEveryTaskThenReportsTheFirstFailureWithTheOthersSuppressed() {
        try (Pool pool = workers(2)) {
            TaskFailedException e = assertThrows(TaskFailedException.class,
                    () -> pool.runAll(List.of(failIfOdd.call(2), failIfOdd.call(3), failIfOdd.call(4), failIfOdd.call(5))));
            assertEquals("odd: 3", e.getCause().getMessage());
            assertEquals(1, e.getSuppressed().length);
            assertEquals("odd: 5", e.getSuppressed()[0].getCause().getMessage());
            assertEquals(4, pool.run(failIfOdd.call(4)), "a failed task fails only its own future");
        }
    }

    @Test
    void defaultSizeIsTheNumberOfProcessors() {
        try (Pool pool = workers()) {
            assertEquals(Runtime.getRuntime().availableProcessors(), pool.workers().size());
        }
    }

    @Test
    void workersAreNamedDaemonPlatformThreadsAndHandlesKnowTheirIndex() {
        try (Pool pool = workers(3, PoolOptions.defaults().withThreadNamePrefix("test-pool-names"))) {
            for (WorkerHandle handle : pool.workers()) {
                Thread thread = pool.run(assign(handle, whereAmI.call()));
                assertSame(threadOf(handle), thread);
                assertEquals("test-pool-names-worker-" + handle.index(), thread.getName());
                assertTrue(thread.isDaemon());
                assertFalse(thread.isVirtual());
            }
        }
    }

    @Test
    void assignedTasksRunOnTheirWorkerEvenWhenJoinedDirectly() {
        try (Pool pool = workers(4)) {
            for (int round = 0; round < 50; round++) {
                for (WorkerHandle handle : pool.workers()) {
                    assertSame(threadOf(handle), pool.run(assign(handle, whereAmI.call())));
                    assertSame(threadOf(handle), assign(handle, whereAmI.call()).join());
                }
            }
        }
    }

    @Test
    void gracefulCloseFinishesInFlightWorkFiresTheSignalAndRejectsNewTasks() throws Exception {
        Pool pool = workers(2);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        CompletableFuture<String> blocked = pool.submit(assign(pool.workers().get(0), waitFor.call(started, gate)));
        List<CompletableFuture<Integer>> queued = new ArrayList<>();
        for (int i = 0; i < 20; i++) queued.add(pool.submit(assign(pool.workers().get(0), square.call(i))));
        assertTrue(started.await(10, TimeUnit.SECONDS));

        CountDownLatch signalled = new CountDownLatch(1);
        pool.signal().onAbort(signalled::countDown);
        Thread closer = Thread.ofPlatform().start(pool::close);
        assertTrue(signalled.await(10, TimeUnit.SECONDS), "close() fires the pool's signal first");
        assertTrue(pool.isClosed());
        RejectedExecutionException rejected = assertThrows(RejectedExecutionException.class, () -> pool.submit(square.call(1)));
        assertTrue(rejected.getMessage().contains("is closed"), rejected.getMessage());
        assertFalse(blocked.isDone(), "close() waits for the running task");

        gate.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(closer.isAlive());
        assertEquals("released", blocked.get());
        for (int i = 0; i < 20; i++) assertEquals(i * i, queued.get(i).get(), "queued tasks still run");
        assertTrue(pool.signal().reason().contains("is closing"), pool.signal().reason());
    }

    @Test
    void everyEntryPointRejectsAfterClose() {
        Pool pool = workers(1);
        WorkerHandle worker = pool.workers().get(0);
        pool.close();
        pool.close(); // idempotent
        for (Runnable use : List.<Runnable>of(
                () -> pool.run(square.call(1)),
                () -> pool.submit(square.call(1)),
                () -> pool.runAll(List.of(square.call(1))),
                () -> assign(worker, square.call(1)).join(),
                () -> assign(worker, square.call(1)).future())) {
            RejectedExecutionException e = assertThrows(RejectedExecutionException.class, use::run);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    void theShutdownTimeoutInterruptsRunningTasksAndCancelsQueuedOnes() throws Exception {
        Pool pool = workers(1, PoolOptions.defaults().withShutdownTimeout(Duration.ofMillis(200)));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch neverOpened = new CountDownLatch(1);
        CompletableFuture<String> running = pool.submit(waitFor.call(started, neverOpened));
        CompletableFuture<Integer> queued = pool.submit(square.call(3));
        assertTrue(started.await(10, TimeUnit.SECONDS));

        pool.close();

        Throwable cancelled = cancellation(running);
        assertTrue(cancelled.getMessage().contains("did not finish within its shutdown timeout of PT0.2S"), cancelled.getMessage());
        assertTrue(cancelled.getMessage().contains("interrupted"), cancelled.getMessage());
        Throwable notStarted = cancellation(queued);
        assertTrue(notStarted.getMessage().contains("before this task started"), notStarted.getMessage());
    }

    @Test
    void aTaskThatIgnoresInterruptsCannotHoldCloseBeyondTheTimeout() throws Exception {
        Pool pool = workers(1, PoolOptions.defaults().withShutdownTimeout(Duration.ZERO));
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<String> stubborn = pool.submit(ignoreInterrupts.call(stop));
        CompletableFuture<String> behind = pool.submit(ignoreInterrupts.call(stop));
        pool.close();
        assertThrows(CancellationException.class, stubborn::join);
        assertThrows(CancellationException.class, behind::join);
        stop.set(true); // lets the abandoned thread end, so it does not outlive the test
    }

    @Test
    void terminateFailsEverythingAtOnce() throws Exception {
        Pool pool = workers(2);
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch neverOpened = new CountDownLatch(1);
        List<CompletableFuture<String>> running = List.of(
                pool.submit(assign(pool.workers().get(0), waitFor.call(started, neverOpened))),
                pool.submit(assign(pool.workers().get(1), waitFor.call(started, neverOpened))));
        CompletableFuture<Integer> queued = pool.submit(assign(pool.workers().get(0), square.call(2)));
        assertTrue(started.await(10, TimeUnit.SECONDS));

        pool.terminate();

        assertTrue(pool.signal().aborted());
        for (CompletableFuture<String> f : running) {
            Throwable e = cancellation(f);
            assertTrue(e.getMessage().contains("was terminated"), e.getMessage());
        }
        assertThrows(CancellationException.class, queued::join);
        assertThrows(RejectedExecutionException.class, () -> pool.run(square.call(1)));
        pool.close(); // after terminate: returns at once
    }

    @Test
    void aPoolSignalPassedAsAnArgumentIsLiveOnTheWorker() throws Exception {
        Pool pool = workers(1);
        assertFalse(pool.run(seesSignal.call(pool.signal())));
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<String> waiting = pool.submit(untilAborted.call(pool.signal(), started));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        pool.close(); // fires the signal, which ends the task, so close() can finish
        assertTrue(waiting.get(10, TimeUnit.SECONDS).contains("is closing"));
    }

    @Test
    void closingFromAWorkerIsRefused() {
        try (Pool pool = workers(1)) {
            TaskFailedException e = assertThrows(TaskFailedException.class, () -> pool.run(closeFromInside.call(pool)));
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("would wait for itself"), e.getCause().getMessage());
        }
    }

    @Test
    void cancellingAQueuedFutureSkipsTheTask() throws Exception {
        try (Pool pool = workers(1)) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            CompletableFuture<String> blocker = pool.submit(waitFor.call(started, gate));
            AtomicBoolean stop = new AtomicBoolean(true); // would return at once if it ran
            CompletableFuture<String> skipped = pool.submit(ignoreInterrupts.call(stop));
            assertTrue(skipped.cancel(false));
            gate.countDown();
            assertEquals("released", blocker.get());
            assertTrue(skipped.isCancelled());
            assertEquals(16, pool.run(square.call(4)));
        }
    }

    @Test
    void badPoolInputsSayWhatIsWrong() {
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class, () -> workers(0));
        assertEquals("a pool needs at least 1 worker, was asked for 0", size.getMessage());
        IllegalArgumentException timeout = assertThrows(IllegalArgumentException.class,
                () -> PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(-1)));
        assertTrue(timeout.getMessage().contains("must not be negative, was PT-1S"), timeout.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PoolOptions.defaults().withThreadNamePrefix(" "));
        assertThrows(NullPointerException.class, () -> workers(1, null));
        assertThrows(NullPointerException.class, () -> PoolOptions.defaults().withBalancer(null));

        try (Pool a = workers(1); Pool b = workers(1)) {
            assertEquals("task", assertThrows(NullPointerException.class, () -> a.run(null)).getMessage());
            assertEquals("task", assertThrows(NullPointerException.class, () -> a.submit(null)).getMessage());
            assertThrows(NullPointerException.class, () -> a.runAll(null));
            assertEquals("worker", assertThrows(NullPointerException.class, () -> assign(null, square.call(1))).getMessage());

            Task<Integer> onA = assign(a.workers().get(0), square.call(2));
            IllegalArgumentException wrongPool = assertThrows(IllegalArgumentException.class, () -> b.run(onA));
            assertTrue(wrongPool.getMessage().contains("belongs to"), wrongPool.getMessage());

        }
    }

    @Test
    void aBalancerThatReturnsAStrangerIsReported() {
        AtomicReference<WorkerHandle> other = new AtomicReference<>();
        try (Pool donor = workers(1)) {
            other.set(donor.workers().get(0));
            try (Pool pool = workers(2, PoolOptions.defaults().withBalancer((ws, t) -> other.get()))) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.run(square.call(1)));
                assertTrue(e.getMessage().contains("a balancer must return one of the handles it is given"), e.getMessage());
            }
            try (Pool pool = workers(2, PoolOptions.defaults().withBalancer((ws, t) -> null))) {
                assertThrows(IllegalStateException.class, () -> pool.run(square.call(1)));
            }
        }
    }

    /** The exception a future was cancelled with: the one that says why, not join()'s wrapper. */
    static Throwable cancellation(CompletableFuture<?> future) {
        CancellationException e = assertThrows(CancellationException.class, future::join);
        assertTrue(future.isCancelled());
        return e.getCause() instanceof CancellationException stored ? stored : e;
    }

    @Test
    void aFailureInTheFutureCarriesTheMoroutinesException() {
        try (Pool pool = workers(1)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> pool.submit(failIfOdd.call(1)).get());
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
        }
    }
}
