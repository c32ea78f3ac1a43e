package dev.moroutine.internal.dispatch;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A counter that one thread bumps often and others read seldom, alone on its cache line.
 *
 * <p>A plain {@code volatile long} field shares its line with its neighbours: a worker's lifecycle,
 * which the worker reads for every task, or the pool fields that sit next to a balancer. Each bump
 * then takes the line from the reader's core and each read takes it back, a cross-core miss on both
 * sides per task. So the value is the middle element of an {@link AtomicLongArray} with
 * {@value #PAD} unused elements on each side: with the array's header, at least 64 bytes separate it
 * from any other object, whatever the alignment. Thread-safe; never blocks.
 */
public final class PaddedCounter {

    /** Longs on each side of the value: 56 bytes, and the array header before them. */
    private static final int PAD = 7;

    private final AtomicLongArray cells = new AtomicLongArray(2 * PAD + 1);

    /** A counter at 0. */
    public PaddedCounter() {}

    /**
     * Adds to the counter atomically.
     *
     * @param delta what to add
     * @return the value before
     */
    public long getAndAdd(long delta) {
        return cells.getAndAdd(PAD, delta);
    }

    /**
     * The value, read with volatile semantics.
     *
     * @return the value
     */
    public long get() {
        return cells.get(PAD);
    }
}
