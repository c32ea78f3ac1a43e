package dev.moroutine.shared;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Atomic operations, and exact totals when four workers update one atomic. */
@Timeout(120)
class AtomicsTest {

    private static final int WORKERS = 4;
    private static final int ADDS = Stress.scaled(1_000_000);

    static final Mo2<Int32Atomic, Integer, Integer> add32 = mo((counter, n) -> {
        for (int i = 0; i < n; i++) {
            counter.add(1);
        }
        return n;
    });

    static final Mo2<Int64Atomic, Integer, Integer> add64 = mo((counter, n) -> {
        for (int i = 0; i < n; i++) {
            counter.add(3);
        }
        return n;
    });

    /** Increments with a compare-exchange loop: counts the failed attempts, to show there was contention. */
    static final Mo2<Int32Atomic, Integer, Integer> casIncrement = mo((counter, n) -> {
        int retries = 0;
        for (int i = 0; i < n; i++) {
            int seen = counter.load();
            int witness;
            while ((witness = counter.compareExchange(seen, seen + 1)) != seen) {
                seen = witness;
                retries++;
            }
        }
        return retries;
    });

    private static <R> List<R> onEachWorker(Pool pool, java.util.function.Supplier<Task<R>> task) {
        List<Task<R>> tasks = new ArrayList<>();
        for (WorkerHandle worker : pool.workers()) {
            tasks.add(assign(worker, task.get()));
        }
        return pool.runAll(tasks);
    }

    @Test
    void int32Operations() {
        Int32Atomic a = shared(int32Atomic);
        assertEquals(0, a.add(5));
        assertEquals(5, a.sub(2));
        assertEquals(3, a.load());
        assertEquals(3, a.or(0b1100));
        assertEquals(15, a.and(0b0110));
        assertEquals(6, a.xor(0b0011));
        assertEquals(5, a.exchange(40));
        assertEquals(40, a.compareExchange(40, 41), "the witness equals expected when it swapped");
        assertEquals(41, a.compareExchange(40, 99), "the witness is the value found when it did not");
        assertEquals(41, a.load());
        a.store(Integer.MAX_VALUE);
        assertEquals(Integer.MAX_VALUE, a.add(1));
        assertEquals(Integer.MIN_VALUE, a.load(), "overflow wraps");
    }

    @Test
    void int64Operations() {
        Int64Atomic a = shared(int64Atomic);
        assertEquals(0L, a.add(1L << 40));
        assertEquals(1L << 40, a.sub(1));
        assertEquals((1L << 40) - 1, a.and(0xFF));
        assertEquals(0xFFL, a.or(0x100));
        assertEquals(0x1FFL, a.xor(0x1));
        assertEquals(0x1FEL, a.exchange(-1));
        assertEquals(-1L, a.compareExchange(-1, 7));
        assertEquals(7L, a.compareExchange(-1, 8));
        assertEquals(7L, a.load());
    }

    @Test
    void boolOperations() {
        BoolAtomic b = shared(boolAtomic);
        assertFalse(b.or(true));
        assertTrue(b.load());
        assertTrue(b.and(false));
        assertFalse(b.xor(true));
        assertTrue(b.exchange(false));
        assertFalse(b.compareExchange(false, true));
        assertTrue(b.compareExchange(false, false), "witness true: no swap");
        assertTrue(b.load());
        b.store(false);
        assertFalse(b.load());
    }

    @Test
    void fourWorkersTimesAMillionInt32AddsGiveTheExactTotal() {
        Int32Atomic counter = shared(int32Atomic);
        try (Pool pool = workers(WORKERS)) {
            List<Integer> done = onEachWorker(pool, () -> add32.call(counter, ADDS));
            assertEquals(WORKERS, done.size());
        }
        assertEquals(WORKERS * ADDS, counter.load());
    }

    @Test
    void fourWorkersTimesAMillionInt64AddsGiveTheExactTotal() {
        Int64Atomic counter = shared(int64Atomic);
        counter.store(1L << 40);
        try (Pool pool = workers(WORKERS)) {
            onEachWorker(pool, () -> add64.call(counter, ADDS));
        }
        assertEquals((1L << 40) + 3L * WORKERS * ADDS, counter.load());
    }

    @Test
    void compareExchangeLoopsOnFourWorkersLoseNoIncrement() {
        Int32Atomic counter = shared(int32Atomic);
        int each = ADDS / 4;
        try (Pool pool = workers(WORKERS)) {
            onEachWorker(pool, () -> casIncrement.call(counter, each));
        }
        assertEquals(WORKERS * each, counter.load());
    }

    @Test
    void atomicsInAStructAreAtomicToo() {
        record Counters(int hits, long bytes) {}
        Struct<Counters> s = shared(struct(Counters.class).with("hits", int32Atomic).with("bytes", int64Atomic));
        Int32Atomic hits = s.field("hits", Int32Atomic.class);
        try (Pool pool = workers(WORKERS)) {
            onEachWorker(pool, () -> add32.call(hits, ADDS / 10));
        }
        assertEquals(new Counters(WORKERS * (ADDS / 10), 0), s.load());
    }
}
