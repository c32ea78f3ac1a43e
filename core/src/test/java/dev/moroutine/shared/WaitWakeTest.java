package dev.moroutine.shared;

import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code Int32Atomic.await}/{@code waitAsync}/{@code wake}: every outcome, and wakes racing the park. */
@Timeout(120)
class WaitWakeTest {

    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Waits, without sleeping, until {@code thread} is parked (or fails after a deadline). */
    static void awaitParked(Thread thread) {
        long start = System.nanoTime();
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                fail(thread + " did not park; state " + thread.getState());
            }
            Thread.yield();
        }
    }

    /** Calls wake until it has woken {@code count} waiters in all (they may still be arriving). */
    static void wakeUntil(Int32Atomic a, int count) {
        long start = System.nanoTime();
        int woken = 0;
        while (woken < count) {
            woken += a.wake();
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                fail("woke " + woken + " of " + count);
            }
            Thread.yield();
        }
        assertEquals(count, woken);
    }

    @Test
    void notEqualReturnsAtOnceWithoutWaiting() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        a.store(1);
        assertEquals(WaitResult.NOT_EQUAL, a.await(0));
        assertEquals(WaitResult.NOT_EQUAL, a.await(0, Duration.ofHours(1)));
        CompletableFuture<WaitResult> f = a.waitAsync(0);
        assertTrue(f.isDone(), "NOT_EQUAL is synchronous");
        assertEquals(WaitResult.NOT_EQUAL, f.join());
        assertEquals(0, a.wake());
    }

    @Test
    void timesOut() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        long start = System.nanoTime();
        assertEquals(WaitResult.TIMED_OUT, a.await(0, Duration.ofMillis(30)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(WaitResult.TIMED_OUT, a.await(0, Duration.ZERO));
        assertEquals(WaitResult.TIMED_OUT, a.waitAsync(0, Duration.ofMillis(30)).get(30, TimeUnit.SECONDS));
        assertEquals(WaitResult.TIMED_OUT, a.waitAsync(0, Duration.ZERO).join());
        assertEquals(0, a.wake(), "timed-out waiters left the queue");
    }

    /**
     * A woken {@code waitAsync} with a long timeout leaves nothing behind: its timeout is cancelled
     * with it, so the future (and its waiter) can be collected long before the timeout.
     */
    @Test
    void aWokenTimedWaitAsyncIsNotRetainedUntilItsTimeout() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        int waits = 1_000;
        List<java.lang.ref.WeakReference<CompletableFuture<WaitResult>>> refs = new ArrayList<>(waits);
        for (int i = 0; i < waits; i++) {
            CompletableFuture<WaitResult> f = a.waitAsync(0, Duration.ofHours(1));
            assertEquals(1, a.wake());
            assertEquals(WaitResult.OK, f.get(30, TimeUnit.SECONDS));
            refs.add(new java.lang.ref.WeakReference<>(f));
        }
        long start = System.nanoTime();
        for (;;) {
            System.gc();
            long alive = refs.stream().filter(r -> r.get() != null).count();
            if (alive == 0) {
                return;
            }
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                fail(alive + " of " + waits + " woken waitAsync futures are still reachable");
            }
            Thread.yield();
        }
    }

    @Test
    void okWhenWoken() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        CompletableFuture<WaitResult> result = new CompletableFuture<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                result.complete(a.await(0));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        awaitParked(waiter);
        a.store(1);
        assertEquals(1, a.wake());
        assertEquals(WaitResult.OK, result.get(30, TimeUnit.SECONDS));
        waiter.join();
    }

    @Test
    void asyncOkWhenWokenAndNeverOnTheWakingThread() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        CompletableFuture<WaitResult> f = a.waitAsync(0);
        assertFalse(f.isDone());
        CompletableFuture<Thread> where = f.thenApply(r -> Thread.currentThread());
        AtomicInteger woken = new AtomicInteger(-1);
        Thread waker = Thread.ofPlatform().start(() -> woken.set(a.wake()));
        waker.join(TimeUnit.SECONDS.toMillis(30));
        assertEquals(1, woken.get());
        assertEquals(WaitResult.OK, f.get(30, TimeUnit.SECONDS));
        assertNotSame(waker, where.get(30, TimeUnit.SECONDS), "a dependent stage never runs inside wake()");
    }

    @Test
    void wakeNWakesAtMostNOldestFirst() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        List<CompletableFuture<WaitResult>> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(a.waitAsync(0));
        }
        assertEquals(0, a.wake(0));
        assertEquals(2, a.wake(2));
        waiting.get(0).get(30, TimeUnit.SECONDS);
        waiting.get(1).get(30, TimeUnit.SECONDS);
        for (int i = 2; i < 5; i++) {
            assertFalse(waiting.get(i).isDone(), "waiter " + i);
        }
        assertEquals(3, a.wake());
        for (CompletableFuture<WaitResult> w : waiting) {
            assertEquals(WaitResult.OK, w.get(30, TimeUnit.SECONDS));
        }
        assertEquals(0, a.wake());
    }

    @Test
    void aWakeOfAnotherWordWakesNobodyHere() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        Int32Atomic b = shared(int32Atomic);
        CompletableFuture<WaitResult> f = a.waitAsync(0);
        assertEquals(0, b.wake());
        assertFalse(f.isDone());
        Int32Atomic sameWord = view(int32Atomic, a.segment(), a.offset());
        assertEquals(1, sameWord.wake(), "every view of the same memory shares the waiters");
        assertEquals(WaitResult.OK, f.get(30, TimeUnit.SECONDS));
    }

    @Test
    void cancellingAnAsyncWaitWithdrawsIt() {
        Int32Atomic a = shared(int32Atomic);
        CompletableFuture<WaitResult> f = a.waitAsync(0);
        assertTrue(f.cancel(false));
        assertEquals(0, a.wake());
    }

    @Test
    void anInterruptEndsABlockingWaitAndConsumesNoWake() throws Exception {
        Int32Atomic a = shared(int32Atomic);
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                a.await(0);
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(t);
            }
        });
        awaitParked(waiter);
        waiter.interrupt();
        assertInstanceOf(InterruptedException.class, thrown.get(30, TimeUnit.SECONDS));
        assertEquals(0, a.wake(), "the interrupted waiter left the queue");

        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> a.await(0));
        assertFalse(Thread.interrupted(), "the status is cleared by the exception");
    }

    /**
     * The waiter announces the word and waits on it; the waker, as soon as it sees the
     * announcement, changes the word and wakes. Over many rounds the wake lands before, during and
     * after the waiter's check-and-park: it must never be lost (a lost one hangs), and the wake's
     * count must match the waiter's outcome exactly.
     */
    @Test
    void aWakeRacingTheParkIsNeverLost() throws Exception {
        int rounds = Stress.scaled(20_000);
        Int32Atomic[] words = new Int32Atomic[rounds];
        for (int i = 0; i < rounds; i++) {
            words[i] = shared(tuple(int32Atomic)).element(0, Int32Atomic.class); // packed, not a line each
        }
        AtomicInteger announced = new AtomicInteger(-1);
        WaitResult[] results = new WaitResult[rounds];
        int[] woken = new int[rounds];
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            Future<?> waiter = threads.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    announced.set(i);
                    results[i] = words[i].await(0);
                }
                return null;
            });
            Future<?> waker = threads.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    while (announced.get() < i) {
                        Thread.onSpinWait();
                    }
                    words[i].store(1);
                    woken[i] = words[i].wake();
                }
                return null;
            });
            waker.get(60, TimeUnit.SECONDS);
            waiter.get(60, TimeUnit.SECONDS);
        }
        int ok = 0;
        for (int i = 0; i < rounds; i++) {
            assertTrue(results[i] == WaitResult.OK || results[i] == WaitResult.NOT_EQUAL, "round " + i + ": " + results[i]);
            assertEquals(results[i] == WaitResult.OK ? 1 : 0, woken[i], "round " + i + ": " + results[i]);
            if (results[i] == WaitResult.OK) ok++;
        }
        System.out.printf("wake racing park: %d of %d rounds parked and were woken, the rest saw the new value%n", ok, rounds);
    }

    @Test
    void anAsyncWakeRacingTheRegistrationIsNeverLost() throws Exception {
        int rounds = Stress.scaled(5_000);
        try (ExecutorService waker = Executors.newSingleThreadExecutor()) {
            for (int i = 0; i < rounds; i++) {
                Int32Atomic a = shared(int32Atomic);
                Future<Integer> woke = waker.submit(() -> {
                    a.store(1);
                    return a.wake();
                });
                WaitResult r = a.waitAsync(0).get(30, TimeUnit.SECONDS);
                assertEquals(r == WaitResult.OK ? 1 : 0, woke.get(30, TimeUnit.SECONDS), "round " + i + ": " + r);
            }
        }
    }

    /** Ten thousand virtual threads park on one word at once; one wake() releases all of them. */
    @Test
    void manyVirtualThreadsParkAndAllWake() throws Exception {
        int count = 10_000;
        Int32Atomic a = shared(int32Atomic);
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<WaitResult>> results = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                results.add(virtual.submit(() -> a.await(0)));
            }
            wakeUntil(a, count);
            for (Future<WaitResult> r : results) {
                assertEquals(WaitResult.OK, r.get(30, TimeUnit.SECONDS));
            }
        }
    }
}
