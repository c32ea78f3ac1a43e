package dev.moroutine.shared;

import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Readers share, writers exclude, nobody sees half a write, writers are not starved. */
@Timeout(120)
class RwLockTest {

    record Wide(long a, long b, long c, long d) {
        boolean consistent() {
            return a == b && b == c && c == d;
        }
    }

    @Test
    void readersNeverObserveAHalfWrittenStruct() throws Exception {
        RwLock rw = shared(rwLock);
        Struct<Wide> data = shared(struct(Wide.class));
        int writes = Stress.scaled(20_000);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        try (ExecutorService threads = Executors.newFixedThreadPool(4)) {
            List<Future<Long>> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                writers.add(threads.submit(() -> {
                    for (int i = 0; i < writes; i++) {
                        try (var _ = rw.writeLock()) {
                            long next = data.load().a() + 1;
                            data.store(new Wide(next, next, next, next));
                        }
                    }
                    return 0L;
                }));
            }
            List<Future<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(threads.submit(() -> {
                    long torn = 0;
                    while (writing.get()) {
                        try (var _ = rw.readLock()) {
                            if (!data.load().consistent()) torn++;
                        }
                        reads.incrementAndGet();
                    }
                    return torn;
                }));
            }
            for (Future<Long> w : writers) w.get(90, TimeUnit.SECONDS);
            writing.set(false);
            for (Future<Long> r : readers) assertEquals(0L, r.get(30, TimeUnit.SECONDS), "torn reads");
        }
        assertEquals(new Wide(2L * writes, 2L * writes, 2L * writes, 2L * writes), data.load());
        assertTrue(reads.get() > 0);
    }

    @Test
    void readersShareTheLock() throws Exception {
        RwLock rw = shared(rwLock);
        CountDownLatch bothIn = new CountDownLatch(2);
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            List<Future<Boolean>> readers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                readers.add(threads.submit(() -> {
                    try (var _ = rw.readLock()) {
                        bothIn.countDown();
                        return bothIn.await(30, TimeUnit.SECONDS); // only if both hold it at once
                    }
                }));
            }
            for (Future<Boolean> r : readers) assertTrue(r.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void tryForms() throws Exception {
        RwLock rw = shared(rwLock);
        try (Guard r = rw.tryReadLock()) {
            assertNotNull(r);
            try (Guard r2 = rw.tryReadLock()) {
                assertNotNull(r2, "readers share");
            }
            assertNull(rw.tryWriteLock(), "no writer while read-locked");
        }
        try (Guard w = rw.tryWriteLock()) {
            assertNotNull(w);
            assertNull(rw.tryReadLock(), "no reader while write-locked");
            assertNull(rw.tryWriteLock());
            assertNull(MutexTest.onThread(rw::tryReadLock).get(30, TimeUnit.SECONDS));
        }
        try (Guard w = rw.tryWriteLock()) {
            assertNotNull(w, "free again");
        }
    }

    @Test
    void aWaitingWriterKeepsNewReadersOut() throws Exception {
        RwLock rw = shared(rwLock);
        Guard reader = rw.readLock();
        CompletableFuture<Guard> writer = rw.writeLockAsync();
        long start = System.nanoTime();
        while (rw.tryReadLock() instanceof Guard slipped) { // until the writer has counted itself in
            slipped.close();
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the writer never started waiting");
            Thread.yield();
        }
        assertFalse(writer.isDone());
        assertThrows(TimeoutException.class, () -> rw.readLock(Duration.ofMillis(10)));
        reader.close();
        Guard w = writer.get(30, TimeUnit.SECONDS);
        w.close();
        try (Guard r = rw.readLock(Duration.ofSeconds(30))) {
            assertNotNull(r);
        }
    }

    @Test
    void aWriterThatGivesUpLetsWaitingReadersIn() throws Exception {
        RwLock rw = shared(rwLock);
        Guard reader = rw.readLock();
        CompletableFuture<Throwable> writer = MutexTest.onThread(() -> {
            try {
                rw.writeLock(Duration.ofMillis(200)).close();
                return null;
            } catch (TimeoutException e) {
                return e;
            }
        });
        long start = System.nanoTime();
        while (rw.tryReadLock() instanceof Guard slipped) {
            slipped.close();
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30));
            Thread.yield();
        }
        CompletableFuture<Guard> secondReader = rw.readLockAsync(); // held back by the waiting writer
        assertInstanceOf(TimeoutException.class, writer.get(30, TimeUnit.SECONDS));
        secondReader.get(30, TimeUnit.SECONDS).close();
        reader.close();
    }

    /** Four threads take read locks back to back, overlapping, without pause; writers still get in, every time. */
    @Test
    void writersAreNotStarvedByASteadyStreamOfReaders() throws Exception {
        RwLock rw = shared(rwLock);
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        int writes = 200;
        try (ExecutorService threads = Executors.newFixedThreadPool(4)) {
            List<Future<?>> readers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                readers.add(threads.submit(() -> {
                    while (reading.get()) {
                        try (var _ = rw.readLock()) {
                            reads.incrementAndGet();
                        }
                    }
                }));
            }
            awaitReads(reads, 1000);
            long start = System.nanoTime();
            for (int i = 0; i < writes; i++) {
                rw.writeLock(Duration.ofSeconds(30)).close(); // a starved writer fails with a TimeoutException
                awaitReads(reads, reads.get() + 20); // the readers stream on between writes
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            reading.set(false);
            for (Future<?> r : readers) r.get(30, TimeUnit.SECONDS);
            System.out.printf("rwlock: %d writes among %d reads in %d ms%n", writes, reads.get(), tookMillis);
        }
    }

    private static void awaitReads(AtomicLong reads, long atLeast) {
        long start = System.nanoTime();
        while (reads.get() < atLeast) {
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the readers stopped reading");
            Thread.onSpinWait();
        }
    }

    @Test
    void guardMisuseThrows() throws Exception {
        RwLock rw = shared(rwLock);
        Guard r = rw.readLock();
        r.close();
        assertThrows(IllegalMonitorStateException.class, r::close);
        Guard w = rw.writeLock();
        var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> MutexTest.onThread(() -> {
            w.close();
            return null;
        }).get(30, TimeUnit.SECONDS));
        assertInstanceOf(IllegalMonitorStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().startsWith("the write lock of rwLock@"), e.getCause().getMessage());
        assertNull(rw.tryReadLock(), "still write-locked");
        w.close();
        assertNotNull(rw.tryWriteLock());
    }

    /** Virtual threads mix reads and writes: they park, never pin, and the count is exact. */
    @Test
    void virtualThreadsMixReadsAndWrites() throws Exception {
        RwLock rw = shared(rwLock);
        Int64 counter = shared(int64);
        int threads = 500;
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(virtual.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        try (var _ = rw.writeLock()) {
                            counter.store(counter.load() + 1);
                        }
                        try (var _ = rw.readLock()) {
                            assertTrue(counter.load() > 0);
                        }
                    }
                }));
            }
            for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
        }
        assertEquals(threads * 50L, counter.load());
    }
}
