package dev.moroutine.shared;

/**
 * A shared {@code uint32}: an unsigned 32-bit integer, 0 to 4294967295, read and written as a {@code long}. Made by {@code Shared.shared(uint32)}.
 *
 * <p>Thread-safe: each {@link #load()} and {@link #store} is a single access that is never torn
 * (the JVM's <em>opaque</em> mode) but orders nothing around it. To publish it together with other
 * data, guard both with a {@link Mutex} or {@link RwLock}, or use an atomic.
 */
public sealed interface Uint32 extends SharedValue permits dev.moroutine.internal.shared.Uint32Cell {

    /**
     * Reads the value.
     *
     * @return the value
     */
    long load();

    /**
     * Writes the value.
     *
     * @param value the new value
     * @throws IllegalArgumentException if {@code value} is not in 0..4294967295; the memory is unchanged
     */
    void store(long value);
}
