package dev.moroutine.shared;

import static dev.moroutine.shared.Shared.*;

import dev.moroutine.testing.Stress;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Linearizability of the atomics and locks, checked by Lincheck in stress mode: it runs random
 * concurrent scenarios of the {@code @Operation}s on real threads and checks that every outcome
 * matches some sequential order of the same operations. (Its model checker cannot see
 * {@code MemorySegment} accesses, so stress mode is the one that applies.) The locks are checked
 * through what they protect: a lock that let two holders in would give outcomes no sequential
 * order explains. The {@code try…} forms are left out: they may fail where a sequential run never
 * would, which is their contract, not a linearizability bug; {@link MutexTest} and
 * {@link RwLockTest} cover them.
 */
@Timeout(120)
class LincheckTest {

    private static StressOptions options() {
        return new StressOptions()
                .iterations(Stress.scaled(15))
                .invocationsPerIteration(500)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1);
    }

    /** Int32Atomic's read-modify-writes. */
    public static class Int32AtomicOps {
        private final Int32Atomic a = shared(int32Atomic);

        @Operation
        public int add(int delta) {
            return a.add(delta);
        }

        @Operation
        public int sub(int delta) {
            return a.sub(delta);
        }

        @Operation
        public int xor(int mask) {
            return a.xor(mask);
        }

        @Operation
        public int exchange(int value) {
            return a.exchange(value);
        }

        @Operation
        public int compareExchange(int expected, int replacement) {
            return a.compareExchange(expected, replacement);
        }

        @Operation
        public int load() {
            return a.load();
        }
    }

    /** Int64Atomic, BoolAtomic. */
    public static class Int64AndBoolOps {
        private final Int64Atomic a = shared(int64Atomic);
        private final BoolAtomic b = shared(boolAtomic);

        @Operation
        public long add(long delta) {
            return a.add(delta);
        }

        @Operation
        public long compareExchange(long expected, long replacement) {
            return a.compareExchange(expected, replacement);
        }

        @Operation
        public boolean flip() {
            return b.xor(true);
        }

        @Operation
        public boolean setIfClear() {
            return b.compareExchange(false, true);
        }
    }

    /** A two-field struct updated under a Mutex (blocking and timed forms). */
    public static class MutexOps {
        record Pair(int a, int b) {}

        private final Mutex mu = shared(mutex);
        private final Struct<Pair> pair = shared(struct(Pair.class));

        @Operation
        public int increment() {
            try (var _ = mu.lock()) {
                Pair p = pair.load();
                pair.store(new Pair(p.a() + 1, p.b() + 1));
                return p.a() == p.b() ? p.a() + 1 : -1;
            }
        }

        @Operation
        public int timedIncrement() throws Exception {
            try (var _ = mu.lock(java.time.Duration.ofMinutes(1))) {
                Pair p = pair.load();
                pair.store(new Pair(p.a() + 1, p.b() + 1));
                return p.a() == p.b() ? p.a() + 1 : -1;
            }
        }

        @Operation
        public int read() {
            try (var _ = mu.lock()) {
                Pair p = pair.load();
                return p.a() == p.b() ? p.a() : -1;
            }
        }
    }

    /** A two-field struct written under the write lock and read under the read lock. */
    public static class RwLockOps {
        record Pair(int a, int b) {}

        private final RwLock rw = shared(rwLock);
        private final Struct<Pair> pair = shared(struct(Pair.class));

        @Operation
        public int add(int delta) {
            try (var _ = rw.writeLock()) {
                Pair p = pair.load();
                pair.store(new Pair(p.a() + delta, p.b() + delta));
                return p.a() == p.b() ? p.a() : -1;
            }
        }

        @Operation
        public int read() {
            try (var _ = rw.readLock()) {
                Pair p = pair.load();
                return p.a() == p.b() ? p.a() : -1;
            }
        }
    }

    @Test
    void int32AtomicIsLinearizable() {
        options().check(Int32AtomicOps.class);
    }

    @Test
    void int64AndBoolAtomicsAreLinearizable() {
        options().check(Int64AndBoolOps.class);
    }

    @Test
    void mutexProtectedStructIsLinearizable() {
        options().check(MutexOps.class);
    }

    @Test
    void rwLockProtectedStructIsLinearizable() {
        options().check(RwLockOps.class);
    }
}
