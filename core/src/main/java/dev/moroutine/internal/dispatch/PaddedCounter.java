package dev.moroutine.internal.dispatch;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A counter that one thread bumps often and others read seldom, alone on its cache line.
 *
 * <p>A plain {@code volatile long} field shares its line with its neighbours: a worker's lifecycle,
 * which the worker reads for every task, or the pool fields that sit next to a balancer. Each bump
 * then takes the line from the reader's core and each read takes it back, a cross-core miss on both
 * sides per task. So the value is the middle element of an {@link AtomicLongArray} with
 * {@value #PAD} unused elements on each side (56 bytes, and the array's header before them): no other
 * object shares the value's 64-byte line, whatever the alignment (a CPU that prefetches lines in
 * 128-byte pairs may still pair it with a neighbour's). Thread-safe; never blocks.
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

    /**
     * Sets the counter to {@code update} if it is {@code expected}, atomically.
     *
     * @param expected the value it must have
     * @param update the new value
     * @return whether it was set
     */
    public boolean compareAndSet(long expected, long update) {
        return cells.compareAndSet(PAD, expected, update);
    }

    /**
     * Adds one without an atomic read-modify-write: a bump made at the same time by another thread
     * may be lost. For a count that only spreads choices (a round robin's turn), where a lost bump
     * costs nothing and a locked instruction per task costs much.
     *
     * @return the value before
     */
    public long bump() {
        long value = cells.getOpaque(PAD);
        cells.setOpaque(PAD, value + 1);
        return value;
    }
}
