package dev.moroutine.examples.loadbalancing;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;

/** Holds a job whose cost is given in units of CPU work. */
public final class Jobs {

    private Jobs() {}

    /**
     * A finished job: a checksum of its work, and the worker that did it.
     *
     * @param checksum the result of the work, the same for the same units
     * @param worker the name of the worker thread
     */
    public record Done(long checksum, String worker) {}

    /** Spins through {@code units * 600_000} xorshift steps: deterministic, CPU-bound, about 1 ms a unit. */
    public static final Mo1<Integer, Done> burn = mo(units -> {
        long x = units;
        for (long i = 0; i < units * 600_000L; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return new Done(x, Thread.currentThread().getName());
    });
}
