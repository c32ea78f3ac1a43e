package dev.moroutine.shared;

/**
 * A shared {@code boolean} with atomic operations (stored as a 4-byte word holding 0 or 1, since the
 * JVM has no atomic read-modify-write on a single byte). Made by {@code Shared.shared(boolAtomic)}.
 *
 * <p>Thread-safe and lock-free. Every operation is a single atomic access with <em>volatile</em>
 * (sequentially consistent) semantics, like the JavaScript {@code Atomics} functions and the
 * {@code java.util.concurrent.atomic} classes: a {@link #store} or a read-modify-write
 * <i>happens-before</i> every operation that reads the value it wrote. The read-modify-writes
 * return the value that was there before (as {@code Atomics.add} does), and
 * {@link #compareExchange} returns the witness: the value found, which equals {@code expected}
 * exactly when the exchange happened.
 *
 * <p>There is no {@code add} or {@code sub}: use {@link #or}, {@link #and} and {@link #xor}.
 */
public sealed interface BoolAtomic extends SharedValue permits dev.moroutine.internal.shared.BoolAtomicCell {

    /**
     * Reads the value (volatile).
     *
     * @return the value
     */
    boolean load();

    /**
     * Writes the value (volatile).
     *
     * @param value the new value
     */
    void store(boolean value);

    /**
     * Bitwise AND, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    boolean and(boolean mask);

    /**
     * Bitwise OR, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    boolean or(boolean mask);

    /**
     * Bitwise XOR, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    boolean xor(boolean mask);

    /**
     * Replaces the value atomically.
     *
     * @param value the new value
     * @return the value before
     */
    boolean exchange(boolean value);

    /**
     * Replaces the value with {@code replacement} if it is {@code expected}, atomically.
     *
     * @param expected the value to replace
     * @param replacement the new value
     * @return the value found (the witness): {@code expected} if it was replaced
     */
    boolean compareExchange(boolean expected, boolean replacement);
}
