package dev.moroutine.examples.atomics;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.atomics.Counting.*;
import static dev.moroutine.shared.Shared.*;

import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.shared.Int32;
import dev.moroutine.shared.Int32Atomic;

/**
 * A shared atomic counter: four workers each add 1 to the same {@code int32Atomic} 250,000 times,
 * and the total is exact. The main thread does not join the tasks: it waits on a second atomic
 * that each worker bumps and wakes when done ({@code await}/{@code wake}). For contrast, the same
 * counting with a plain {@code int32} (load, then store) loses increments whenever two workers race.
 */
public final class AtomicsExample {

    private static final int WORKERS = 4;
    private static final int EACH = 250_000;

    private AtomicsExample() {}

    /**
     * Counts with and without atomics and prints both totals.
     *
     * @param args ignored
     * @throws InterruptedException if interrupted while waiting for the workers
     */
    public static void main(String[] args) throws InterruptedException {
        Int32Atomic counter = shared(int32Atomic);
        Int32 plain = shared(int32);
        Int32Atomic finished = shared(int32Atomic);
        try (Pool pool = workers(WORKERS)) {
            for (WorkerHandle worker : pool.workers()) {
                pool.submit(assign(worker, countUp.call(counter, EACH, finished)));
            }
            waitFor(finished, WORKERS);
            finished.store(0);
            for (WorkerHandle worker : pool.workers()) {
                pool.submit(assign(worker, countUpPlain.call(plain, EACH, finished)));
            }
            waitFor(finished, WORKERS);
        }
        int expected = WORKERS * EACH;
        System.out.printf("int32Atomic, add(1):        %,d%n", counter.load());
        System.out.printf("plain int32, load + store:  %,d (%,d increments lost to races)%n", plain.load(), expected - plain.load());
        check(counter.load() == expected, "atomic total = " + WORKERS + " workers × " + EACH + " = " + expected);
    }

    /** Parks until {@code finished} reaches {@code count}: re-reads after every wake, as with any futex. */
    private static void waitFor(Int32Atomic finished, int count) throws InterruptedException {
        int seen;
        while ((seen = finished.load()) < count) {
            finished.await(seen);
        }
    }
}
