package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo2;
import dev.moroutine.Mo3;
import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.RwLock;
import dev.moroutine.shared.Struct;
import dev.moroutine.shared.WaitResult;

/** Moroutines on shared memory that the tests run on isolated workers; loaded in the worker JVMs too. */
public final class SharedJobs {

    private SharedJobs() {}

    /** Two fields that a torn update would leave unequal (check is always twice count). */
    public record Tally(long count, long check) {}

    /** {@code n} read-modify-writes of the tally under the mutex; returns the process it ran in. */
    public static final Mo3<Mutex, Struct<Tally>, Integer, Long> update = mo((mutex, tally, n) -> {
        for (int i = 0; i < n; i++) {
            try (var _ = mutex.lock()) {
                Tally now = tally.load();
                tally.store(new Tally(now.count() + 1, now.check() + 2));
            }
        }
        return ProcessHandle.current().pid();
    });

    /** The same under the write lock of a readers-writer lock, with a read-locked check between updates. */
    public static final Mo3<RwLock, Struct<Tally>, Integer, Integer> updateRw = mo((lock, tally, n) -> {
        int torn = 0;
        for (int i = 0; i < n; i++) {
            try (var _ = lock.writeLock()) {
                Tally now = tally.load();
                tally.store(new Tally(now.count() + 1, now.check() + 2));
            }
            try (var _ = lock.readLock()) {
                Tally now = tally.load();
                if (now.check() != 2 * now.count()) {
                    torn++;
                }
            }
        }
        return torn;
    });

    /**
     * One side of a strict alternation on {@code turn}: this side moves it from {@code 2i + side} to
     * {@code 2i + side + 1} and waits for the other side's moves; a lost wake would hang it.
     *
     * @return how many of its waits were ended by a wake (rather than finding the value changed)
     */
    public static final Mo3<Int32Atomic, Integer, Integer, Integer> alternate = mo((turn, side, rounds) -> alternate(turn, side, rounds));

    public static int alternate(Int32Atomic turn, int side, int rounds) throws InterruptedException {
        int woken = 0;
        for (int i = 0; i < rounds; i++) {
            int want = 2 * i + side;
            for (int seen; (seen = turn.load()) != want; ) {
                if (turn.await(seen) == WaitResult.OK) {
                    woken++;
                }
            }
            turn.store(want + 1);
            turn.wake();
        }
        return woken;
    }

    /** A struct whose fields the generated load reads plain (32 bits and fewer); all of them follow {@code count}. */
    public record Narrow(int count, short low, byte tag, boolean odd) {
        /** The value that follows {@code count}. */
        public static Narrow of(int count) {
            return new Narrow(count, (short) count, (byte) count, (count & 1) == 1);
        }
    }

    /** {@code n} read-modify-writes of a narrow struct under the mutex; returns the loads whose fields did not agree. */
    public static final Mo3<Mutex, Struct<Narrow>, Integer, Integer> updateNarrow = mo((mutex, narrow, n) -> {
        int torn = 0;
        for (int i = 0; i < n; i++) {
            try (var _ = mutex.lock()) {
                Narrow now = narrow.load();
                if (!now.equals(Narrow.of(now.count()))) {
                    torn++;
                }
                narrow.store(Narrow.of(now.count() + 1));
            }
        }
        return torn;
    });

    /**
     * Says it started (on {@code started}), then polls {@code flag} with nothing but {@code load()} in
     * the loop until its count is not 0, at most {@code bound} times; returns the count it saw (0: never).
     */
    public static final Mo3<Int32Atomic, Struct<Narrow>, Long, Integer> pollNarrow = mo((started, flag, bound) -> {
        started.store(1);
        started.wake();
        int seen = 0;
        for (long i = 0; i < bound && (seen = flag.load().count()) == 0; i++) {
            // Empty: no call, no spin-wait hint, so nothing but the load's own fence keeps the read in the loop.
        }
        return seen;
    });

    /** Makes a shared value in the worker JVM and tries to return it. */
    public static final dev.moroutine.Mo0<Int32Atomic> makeOne = mo(() -> dev.moroutine.shared.Shared.shared(
            dev.moroutine.shared.Shared.int32Atomic));

    /** Adds {@code n} to a counter, one at a time, and returns its value after. */
    public static final Mo2<Int32Atomic, Integer, Integer> count = mo((counter, n) -> {
        for (int i = 0; i < n; i++) {
            counter.add(1);
        }
        return counter.load();
    });
}
