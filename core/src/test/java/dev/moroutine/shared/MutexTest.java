package dev.moroutine.shared;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import dev.moroutine.Mo3;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Mutual exclusion, the try/timed/async forms, guard misuse, interrupts, virtual threads. */
@Timeout(120)
class MutexTest {

    private static final int WORKERS = 4;
    private static final int UPDATES = Stress.scaled(100_000);

    record Position(long x, long y) {}

    /** Read-modify-write of both fields under the lock; counts loads whose fields disagree (torn). */
    static final Mo3<Mutex, Struct<Position>, Integer, Integer> move = mo((mu, pos, n) -> {
        int torn = 0;
        for (int i = 0; i < n; i++) {
            try (var _ = mu.lock()) {
                Position p = pos.load();
                if (p.x() != p.y()) torn++;
                pos.store(new Position(p.x() + 1, p.y() + 1));
            }
        }
        return torn;
    });

    /** Runs {@code body} on a new platform thread and returns what it returns (or threw). */
    static <T> CompletableFuture<T> onThread(java.util.concurrent.Callable<T> body) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    @Test
    void fourWorkersTimesAHundredThousandLockedUpdatesAreExactAndNeverTorn() {
        Mutex mu = shared(mutex);
        Struct<Position> pos = shared(struct(Position.class));
        List<Integer> torn;
        try (Pool pool = workers(WORKERS)) {
            List<Task<Integer>> tasks = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {
                tasks.add(assign(worker, move.call(mu, pos, UPDATES)));
            }
            torn = pool.runAll(tasks);
        }
        assertEquals(List.of(0, 0, 0, 0), torn);
        assertEquals(new Position((long) WORKERS * UPDATES, (long) WORKERS * UPDATES), pos.load());
        assertFalse(mu.isLocked());
    }

    @Test
    void tryLockGivesNoGuardWhileHeldElsewhere() throws Exception {
        Mutex mu = shared(mutex);
        try (var _ = mu.lock()) {
            assertTrue(mu.isLocked());
            assertNull(onThread(mu::tryLock).get(30, TimeUnit.SECONDS));
            assertNull(mu.tryLock(), "not reentrant");
        }
        try (Guard g = mu.tryLock()) {
            assertNotNull(g);
        }
        assertFalse(mu.isLocked());
    }

    @Test
    void timedLockTimesOutOrSucceeds() throws Exception {
        Mutex mu = shared(mutex);
        Guard held = mu.lock();
        var e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> onThread(() -> mu.lock(Duration.ofMillis(20))).get(30, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, e.getCause());
        assertTrue(e.getCause().getMessage().endsWith("was not acquired within PT0.02S"), e.getCause().getMessage());
        assertThrows(TimeoutException.class, () -> mu.lock(Duration.ZERO));

        CompletableFuture<Boolean> later = onThread(() -> {
            try (Guard g = mu.lock(Duration.ofSeconds(30))) {
                return g != null;
            }
        });
        held.close();
        assertTrue(later.get(30, TimeUnit.SECONDS));
        try (Guard g = mu.lock(Duration.ZERO)) {
            assertNotNull(g);
        }
    }

    @Test
    void aGuardReleasesOnceAndOnlyOnItsThread() throws Exception {
        Mutex mu = shared(mutex);
        Guard g = mu.lock();
        var other = assertThrows(java.util.concurrent.ExecutionException.class, () -> onThread(() -> {
            g.close();
            return null;
        }).get(30, TimeUnit.SECONDS));
        assertInstanceOf(IllegalMonitorStateException.class, other.getCause());
        assertTrue(other.getCause().getMessage().contains("is held by thread \"" + Thread.currentThread().getName() + "\""),
                other.getCause().getMessage());
        assertTrue(mu.isLocked(), "a refused close leaves the lock held");
        g.close();
        assertFalse(mu.isLocked());
        var twice = assertThrows(IllegalMonitorStateException.class, g::close);
        assertTrue(twice.getMessage().startsWith("this guard already released its lock of mutex@"), twice.getMessage());
        try (var _ = mu.lock()) {
            assertThrows(IllegalMonitorStateException.class, g::close, "an old guard cannot release a new hold");
            assertTrue(mu.isLocked());
        }
    }

    @Test
    void lockAsyncCompletesWhenTheLockIsFreedAndItsGuardClosesAnywhere() throws Exception {
        Mutex mu = shared(mutex);
        Guard held = mu.lock();
        CompletableFuture<Guard> async = mu.lockAsync();
        assertFalse(async.isDone());
        held.close();
        Guard g = async.get(30, TimeUnit.SECONDS);
        assertTrue(mu.isLocked());
        onThread(() -> {
            g.close();
            return null;
        }).get(30, TimeUnit.SECONDS);
        assertFalse(mu.isLocked());
        assertThrows(IllegalMonitorStateException.class, g::close);

        try (Guard free = mu.lockAsync().join()) {
            assertNotNull(free);
        }
    }

    @Test
    void cancellingLockAsyncGivesUpTheAcquisition() throws Exception {
        Mutex mu = shared(mutex);
        Guard held = mu.lock();
        CompletableFuture<Guard> async = mu.lockAsync();
        assertTrue(async.cancel(false));
        held.close();
        try (Guard g = mu.lock(Duration.ofSeconds(30))) {
            assertNotNull(g, "the cancelled acquisition does not keep the lock");
        }
    }

    @Test
    void lockIgnoresInterruptsAndKeepsTheStatus() throws Exception {
        Mutex mu = shared(mutex);
        Guard held = mu.lock();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            started.countDown();
            try (var _ = mu.lock()) {
                result.complete(Thread.currentThread().isInterrupted());
            }
        });
        started.await();
        WaitWakeTest.awaitParked(waiter);
        waiter.interrupt();
        assertFalse(result.isDone());
        held.close();
        assertTrue(result.get(30, TimeUnit.SECONDS), "returns with the interrupt status set");
    }

    @Test
    void timedLockThrowsOnInterrupt() throws Exception {
        Mutex mu = shared(mutex);
        try (Guard held = mu.lock()) {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            Thread waiter = Thread.ofVirtual().start(() -> {
                try {
                    mu.lock(Duration.ofMinutes(5)).close();
                    thrown.complete(null);
                } catch (Throwable t) {
                    thrown.complete(t);
                }
            });
            WaitWakeTest.awaitParked(waiter);
            waiter.interrupt();
            assertInstanceOf(InterruptedException.class, thrown.get(30, TimeUnit.SECONDS));
            assertNotNull(held);
        }
        assertFalse(mu.isLocked());
    }

    /** A thousand virtual threads contend: they park (never pin) and no increment is lost. */
    @Test
    void virtualThreadsContendWithoutPinning() throws Exception {
        Mutex mu = shared(mutex);
        Int64 counter = shared(int64);
        int threads = 1000;
        int each = 100;
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(virtual.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        try (var _ = mu.lock()) {
                            counter.store(counter.load() + 1);
                        }
                    }
                }));
            }
            for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
        }
        assertEquals((long) threads * each, counter.load());
    }
}
