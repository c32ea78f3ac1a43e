package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Dedicated workers stop after the idle timeout and start again on the next call. */
@Timeout(120)
class DedicatedIdleTest {

    /** A thread-confined value that records where it was opened and closed. */
    static final class Resource implements AutoCloseable {
        final Thread openedOn = Thread.currentThread();
        final Ledger ledger;
        volatile Thread closedOn;

        Resource(Ledger ledger) {
            this.ledger = ledger;
            ledger.opened.add(this);
        }

        @Override
        public void close() {
            if (closedOn != null) throw new AssertionError("closed twice");
            closedOn = Thread.currentThread();
            ledger.closes.countDown();
        }
    }

    record Ledger(ConcurrentLinkedQueue<Resource> opened, CountDownLatch closes) {
        Ledger(int expectedCloses) {
            this(new ConcurrentLinkedQueue<>(), new CountDownLatch(expectedCloses));
        }
    }

    static final Mo1<Ledger, Resource> open = mo(Resource::new);
    static final Mo1<Resource, Thread> use = mo(resource -> {
        if (resource.openedOn != Thread.currentThread()) throw new AssertionError("used off its thread");
        if (resource.closedOn != null) throw new AssertionError("used after close");
        return Thread.currentThread();
    });

    /** Records each call's sequence number and checks that no two calls of this moroutine overlap. */
    static final Mo3<AtomicInteger, Integer, ConcurrentLinkedQueue<Integer>, Thread> record = mo((inside, seq, log) -> {
        if (inside.incrementAndGet() != 1) throw new AssertionError("two threads run one dedicated worker");
        log.add(seq);
        inside.decrementAndGet();
        return Thread.currentThread();
    });
    static final Mo0<Thread> here = mo(Thread::currentThread);

    private Duration before;

    @BeforeEach
    void remember() {
        before = dedicatedIdleTimeout();
    }

    @AfterEach
    void restore() {
        setDedicatedIdleTimeout(before);
    }

    @Test
    void theDefaultIsOneMinuteAndBadSettingsSayWhatIsWrong() {
        assertEquals(Duration.ofSeconds(60), before, "no test run sets the property");
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> setDedicatedIdleTimeout(Duration.ofMillis(-1)));
        assertEquals("the dedicated idle timeout must not be negative, was PT-0.001S; use Duration.ZERO to stop idle threads"
                + " at once, or a long duration to keep them", negative.getMessage());
        assertEquals("timeout", assertThrows(NullPointerException.class, () -> setDedicatedIdleTimeout(null)).getMessage());
        setDedicatedIdleTimeout(Duration.ofMinutes(5));
        assertEquals(Duration.ofMinutes(5), dedicatedIdleTimeout());
    }

    @Test
    void anIdleThreadStopsClosesItsValuesAndTheNextCallStartsANewOne() throws Exception {
        setDedicatedIdleTimeout(Duration.ofMillis(5));
        Ledger ledger = new Ledger(1);
        Task<Resource> resource = open.call(ledger);

        Thread first = use.call(resource).future().get(10, TimeUnit.SECONDS);
        assertTrue(ledger.closes().await(10, TimeUnit.SECONDS), "the idle thread closes its values");
        first.join(10_000);
        assertFalse(first.isAlive(), "and ends");
        Resource closed = ledger.opened().peek();
        assertSame(first, closed.closedOn, "closed on the thread that opened it");

        Thread second = use.call(resource).future().get(10, TimeUnit.SECONDS);
        assertNotSame(first, second);
        assertTrue(second.getName().startsWith(first.getName().replaceFirst("#\\d+$", "") + "#"), second.getName());
        assertTrue(second.isDaemon());
        assertEquals(2, ledger.opened().size(), "the new thread resolves the task-arg afresh");
    }

    @Test
    void aLongTimeoutKeepsTheThread() throws Exception {
        setDedicatedIdleTimeout(Duration.ofMinutes(10));
        Thread first = here.call().future().get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 100; i++) {
            CompletableFuture<Thread> later = here.call().future();
            assertSame(first, later.get(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Calls racing the retirement of the thread, with timeouts that make it retire between almost
     * any two calls, from one caller (a stranded call then has no later call to rescue it) and from
     * three: every call runs exactly once, in order for each caller, on one thread at a time.
     */
    @Test
    void callsRacingTheIdleStopAreNeverLostDuplicatedOrRunTwiceAtOnce() throws Exception {
        int retirements = 0;
        for (int callers : new int[] {1, 3}) {
            for (Duration timeout : List.of(Duration.ZERO, Duration.ofNanos(100_000), Duration.ofMillis(2))) {
                retirements += race(callers, timeout);
            }
        }
        assertTrue(retirements > 0, "the calls raced no retirement at all");
    }

    /** Returns how many times the thread was replaced. */
    private static int race(int callers, Duration timeout) throws Exception {
        setDedicatedIdleTimeout(timeout);
        String where = callers + " callers, timeout " + timeout;
        AtomicInteger inside = new AtomicInteger();
        int perCaller = Stress.scaled(timeout.isZero() ? 3_000 : 1_000) / callers;
        List<ConcurrentLinkedQueue<Integer>> logs = new ArrayList<>();
        Set<Thread> generations = ConcurrentHashMap.newKeySet();
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
            ConcurrentLinkedQueue<Integer> log = new ConcurrentLinkedQueue<>();
            logs.add(log);
            int caller = c;
            running.add(CompletableFuture.runAsync(() -> {
                List<CompletableFuture<Thread>> futures = new ArrayList<>();
                for (int i = 0; i < perCaller; i++) {
                    CompletableFuture<Thread> call = record.call(inside, i, log).future();
                    if ((i + caller) % 3 == 0) {
                        generations.add(get(call, where)); // waits, so the worker goes idle in between
                    } else {
                        futures.add(call);
                    }
                    if ((i + caller) % 8 == 0) pause(ThreadLocalRandom.current().nextLong(2 * timeout.toNanos() + 1));
                }
                for (CompletableFuture<Thread> f : futures) generations.add(get(f, where));
            }, command -> Thread.ofPlatform().start(command)));
        }
        for (CompletableFuture<Void> r : running) r.get(60, TimeUnit.SECONDS);
        for (ConcurrentLinkedQueue<Integer> log : logs) {
            List<Integer> seen = new ArrayList<>(log);
            assertEquals(perCaller, seen.size(), where + ": every call ran once");
            for (int i = 0; i < perCaller; i++) assertEquals(i, seen.get(i), where + ": in order");
        }
        return generations.size() - 1;
    }

    private static Thread get(CompletableFuture<Thread> call, String where) {
        try {
            return call.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(where + ": a call did not complete", e);
        }
    }

    /** Jitter, so that calls also arrive around the moment a non-zero timeout runs out. */
    private static void pause(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    @Test
    void valuesOfEveryGenerationAreClosedOnTheirOwnThread() throws Exception {
        setDedicatedIdleTimeout(Duration.ZERO);
        int calls = Stress.scaled(2_000);
        Ledger ledger = new Ledger(0);
        Task<Resource> resource = open.call(ledger);
        List<CompletableFuture<Thread>> futures = new ArrayList<>();
        Thread last = null;
        for (int i = 0; i < calls; i++) {
            if (i == calls / 2) { // at least one retirement between calls, however fast they come
                last.join(10_000);
                assertFalse(last.isAlive(), "the idle thread retires");
            }
            if (i % 2 == 0) {
                last = use.call(resource).future().get(10, TimeUnit.SECONDS);
            } else {
                futures.add(use.call(resource).future());
            }
        }
        for (CompletableFuture<Thread> f : futures) last = f.get(10, TimeUnit.SECONDS);
        last.join(10_000); // the last generation retires too: its value is closed before it ends
        assertFalse(last.isAlive());
        for (Resource r : ledger.opened()) assertSame(r.openedOn, r.closedOn, "closed on its own thread");
        assertTrue(ledger.opened().size() > 1, "the thread retired between calls");
    }
}
