package dev.moroutine.internal.shared;

import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.shared.Guard;
import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.RwLock;
import dev.moroutine.shared.Shared;
import dev.moroutine.shared.SharedValue;
import dev.moroutine.shared.Struct;
import dev.moroutine.shared.WaitResult;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cross-process hand-off of {@link ProcessWaits}, in one JVM: a chunk file mapped twice gives
 * two addresses for the same memory, as two processes would have, so a wake through one mapping
 * reaches a waiter on the other only through the kernel futex and the proxies, never through
 * {@link Futex}'s in-process registry (keyed by address). The tests across real processes are in
 * the isolated module.
 */
@Timeout(120)
class ProcessWaitsTest {

    record Counter(long a, long b) {}

    private Path directory;

    @BeforeEach
    void enable() throws Exception {
        directory = SharedFiles.enable();
    }

    @AfterEach
    void disable() {
        SharedFiles.disable();
    }

    /** The same value, seen through a second mapping of its chunk file. */
    private static <V extends SharedValue> V otherMapping(V value) {
        AbstractCell cell = (AbstractCell) value;
        SharedFiles.Location at = SharedFiles.locate(cell.segment(), cell.offset());
        assertNotNull(at, "allocated in a chunk file");
        MemorySegment again = SharedFiles.attach(at.file());
        assertNotEquals(cell.segment().address() + cell.offset(), again.address() + at.offset(), "a second mapping");
        @SuppressWarnings("unchecked")
        V view = (V) ((Desc<?>) cell.descriptor()).view(again, at.offset());
        return view;
    }

    @Test
    void filesArePrivateAndRemovedOnDisable() throws Exception {
        Int32Atomic value = Shared.shared(Shared.int32Atomic);
        AbstractCell cell = (AbstractCell) value;
        Path file = SharedFiles.locate(cell.segment(), cell.offset()).file();
        assertEquals(directory, file.getParent());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        Path dir = directory;
        SharedFiles.disable();
        assertFalse(Files.exists(file));
        assertFalse(Files.exists(dir));
        value.store(7); // the mapping outlives the file
        assertEquals(7, value.load());
        assertNull(SharedFiles.locate(cell.segment(), cell.offset()), "no longer crosses");
        assertNull(SharedFiles.locate(((AbstractCell) Shared.shared(Shared.int32Atomic)).segment(), 0), "in-process again");
        directory = SharedFiles.enable();
    }

    @Test
    void aWakeThroughOneMappingReachesAWaiterOnTheOther() throws Exception {
        Int32Atomic here = Shared.shared(Shared.int32Atomic);
        Int32Atomic there = otherMapping(here);
        CompletableFuture<WaitResult> waited = new CompletableFuture<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                waited.complete(there.await(0, Duration.ofSeconds(60)));
            } catch (InterruptedException e) {
                waited.completeExceptionally(e);
            }
        });
        while (waiter.getState() != Thread.State.TIMED_WAITING) { // parked in Futex, registered across
            Thread.onSpinWait();
        }
        here.store(1);
        here.wake();
        assertEquals(WaitResult.OK, waited.get(30, TimeUnit.SECONDS));
    }

    @Test
    void asyncWaitersAndVirtualThreadsAreWokenAcross() throws Exception {
        Int32Atomic here = Shared.shared(Shared.int32Atomic);
        Int32Atomic there = otherMapping(here);
        CompletableFuture<WaitResult> async = there.waitAsync(0);
        CompletableFuture<WaitResult> virtual = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                virtual.complete(there.await(0));
            } catch (InterruptedException e) {
                virtual.completeExceptionally(e);
            }
        });
        // Both registered, and the thread parked in the wait itself (a virtual thread also parks on
        // its way there, in class loading say, and would then find the new value: NOT_EQUAL).
        while (sleepers(here) < 2 || waiter.getState() != Thread.State.WAITING || !parkedIn(waiter, Futex.class)) {
            Thread.onSpinWait();
        }
        here.store(1);
        here.wake();
        assertEquals(WaitResult.OK, async.get(30, TimeUnit.SECONDS));
        assertEquals(WaitResult.OK, virtual.get(30, TimeUnit.SECONDS));
    }

    private static boolean parkedIn(Thread thread, Class<?> where) {
        return Arrays.stream(thread.getStackTrace()).anyMatch(frame -> frame.getClassName().equals(where.getName()));
    }

    private static int sleepers(Int32Atomic value) {
        AbstractCell cell = (AbstractCell) value;
        SharedFiles.Chunk chunk = SharedFiles.chunkOf(cell.segment(), cell.offset());
        return Memory.getIntVolatile(chunk.memory, chunk.bucket(cell.segment().address() + cell.offset()) + 4);
    }

    /** Strict alternation through two mappings: each side waits for its turn; a lost wake hangs it. */
    @Test
    void pingPongAcrossMappingsLosesNoWake() throws Exception {
        int rounds = 20_000;
        Int32Atomic turn = Shared.shared(Shared.int32Atomic);
        Int32Atomic other = otherMapping(turn);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            Int32Atomic mine = side == 0 ? turn : other;
            int me = side;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        int want = 2 * i + me;
                        for (int seen; (seen = mine.load()) != want; ) {
                            mine.await(seen);
                        }
                        mine.store(want + 1);
                        mine.wake();
                    }
                } catch (Throwable t) {
                    synchronized (failures) {
                        failures.add(t);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of(), failures);
        assertEquals(2 * rounds, turn.load());
    }

    /**
     * Tokens handed out one wake at a time, to consumers on both mappings: every token is taken
     * exactly once, no consumer hangs (a wake wrongly skipped by a proxy would), and wake(1) never
     * reports more than one.
     */
    @Test
    void wakeOneHandsEveryTokenToExactlyOneConsumer() throws Exception {
        int consumers = 4;
        int per = 5_000;
        Int32Atomic tokens = Shared.shared(Shared.int32Atomic);
        Int32Atomic tokens2 = otherMapping(tokens);
        java.util.concurrent.atomic.AtomicInteger taken = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger overReported = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> running = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int c = 0; c < consumers; c++) {
            Int32Atomic mine = c % 2 == 0 ? tokens : tokens2;
            Thread.Builder builder = c < 2 ? Thread.ofPlatform() : Thread.ofVirtual();
            running.add(builder.start(() -> {
                try {
                    for (int got = 0; got < per; ) {
                        int t = mine.load();
                        if (t > 0) {
                            if (mine.compareExchange(t, t - 1) == t) {
                                got++;
                                taken.incrementAndGet();
                            }
                        } else {
                            mine.await(0);
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        for (int i = 0; i < consumers * per; i++) {
            Int32Atomic side = i % 2 == 0 ? tokens : tokens2;
            side.add(1);
            if (side.wake(1) > 1) {
                overReported.incrementAndGet();
            }
        }
        for (Thread t : running) {
            t.join();
        }
        assertEquals(List.of(), failures);
        assertEquals(consumers * per, taken.get());
        assertEquals(0, tokens.load());
        assertEquals(0, overReported.get(), "wake(1) reported more than one");
    }

    /** Threads on two mappings of one mutex and one struct: every update counted exactly once. */
    @Test
    void mutexAcrossMappingsIsExclusive() throws Exception {
        int threads = 4;
        int updates = 10_000;
        Mutex mutex = Shared.shared(Shared.mutex);
        Struct<Counter> counter = Shared.shared(new Counter(0, 0));
        Mutex mutex2 = otherMapping(mutex);
        Struct<Counter> counter2 = otherMapping(counter);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Mutex mu = t % 2 == 0 ? mutex : mutex2;
            Struct<Counter> c = t % 2 == 0 ? counter : counter2;
            Thread.Builder builder = t < 2 ? Thread.ofPlatform() : Thread.ofVirtual();
            running.add(builder.start(() -> {
                for (int i = 0; i < updates; i++) {
                    try (Guard _ = mu.lock()) {
                        Counter now = c.load();
                        c.store(new Counter(now.a() + 1, now.b() + 2));
                    }
                }
            }));
        }
        for (Thread t : running) {
            t.join();
        }
        assertEquals(new Counter(threads * updates, 2L * threads * updates), counter.load());
    }

    @Test
    void rwLockWritersExcludeAcrossMappings() throws Exception {
        RwLock lock = Shared.shared(Shared.rwLock);
        RwLock lock2 = otherMapping(lock);
        Int32Atomic value = Shared.shared(Shared.int32Atomic);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            RwLock mine = t % 2 == 0 ? lock : lock2;
            running.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 5_000; i++) {
                    try (Guard _ = mine.writeLock()) {
                        value.store(value.load() + 1);
                    }
                    try (Guard _ = mine.readLock()) {
                        value.load();
                    }
                }
            }));
        }
        for (Thread t : running) {
            t.join();
        }
        assertEquals(20_000, value.load());
    }

    @Test
    void specsMakeTheSameDescriptorAgain() {
        for (var desc : List.of(Shared.int32Atomic, Shared.mutex, Shared.string(12), Shared.bytes(3),
                Shared.tuple(Shared.int32, Shared.tuple(Shared.bool, Shared.rwLock)), Shared.struct(Counter.class),
                Shared.struct(Counter.class).with("a", Shared.int64Atomic))) {
            String spec = Descs.spec(desc);
            Desc<?> again = Descs.parse(spec, ProcessWaitsTest.class.getClassLoader());
            assertEquals(desc.toString(), again.toString(), spec);
            assertEquals(((Desc<?>) desc).layout(), again.layout(), spec);
        }
        assertThrows(IllegalArgumentException.class, () -> Descs.parse("int33", getClass().getClassLoader()));
    }
}
