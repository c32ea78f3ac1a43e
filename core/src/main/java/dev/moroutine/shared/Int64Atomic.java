package dev.moroutine.shared;

/**
 * A shared {@code long} with atomic operations. Made by {@code Shared.shared(int64Atomic)}.
 *
 * <p>Thread-safe and lock-free. Every operation is a single atomic access with <em>volatile</em>
 * (sequentially consistent) semantics, like the JavaScript {@code Atomics} functions and the
 * {@code java.util.concurrent.atomic} classes: a {@link #store} or a read-modify-write
 * <i>happens-before</i> every operation that reads the value it wrote. The read-modify-writes
 * return the value that was there before (as {@code Atomics.add} does), and
 * {@link #compareExchange} returns the witness: the value found, which equals {@code expected}
 * exactly when the exchange happened.
 */
public sealed interface Int64Atomic extends SharedValue permits dev.moroutine.internal.shared.Int64AtomicCell {

    /**
     * Reads the value (volatile).
     *
     * @return the value
     */
    long load();

    /**
     * Writes the value (volatile).
     *
     * @param value the new value
     */
    void store(long value);

    /**
     * Adds atomically; overflow wraps around.
     *
     * @param delta what to add
     * @return the value before
     */
    long add(long delta);

    /**
     * Subtracts atomically; overflow wraps around.
     *
     * @param delta what to subtract
     * @return the value before
     */
    long sub(long delta);

    /**
     * Bitwise AND, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    long and(long mask);

    /**
     * Bitwise OR, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    long or(long mask);

    /**
     * Bitwise XOR, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    long xor(long mask);

    /**
     * Replaces the value atomically.
     *
     * @param value the new value
     * @return the value before
     */
    long exchange(long value);

    /**
     * Replaces the value with {@code replacement} if it is {@code expected}, atomically.
     *
     * @param expected the value to replace
     * @param replacement the new value
     * @return the value found (the witness): {@code expected} if it was replaced
     */
    long compareExchange(long expected, long replacement);
}
