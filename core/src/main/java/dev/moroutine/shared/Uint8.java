package dev.moroutine.shared;

/**
 * A shared {@code uint8}: an unsigned byte, 0 to 255, read and written as an {@code int}. Made by {@code Shared.shared(uint8)}.
 *
 * <p>Thread-safe: each {@link #load()} and {@link #store} is a single access that is never torn
 * (the JVM's <em>opaque</em> mode) but orders nothing around it. To publish it together with other
 * data, guard both with a {@link Mutex} or {@link RwLock}, or use an atomic.
 */
public sealed interface Uint8 extends SharedValue permits dev.moroutine.internal.shared.Uint8Cell {

    /**
     * Reads the value.
     *
     * @return the value
     */
    int load();

    /**
     * Writes the value.
     *
     * @param value the new value
     * @throws IllegalArgumentException if {@code value} is not in 0..255; the memory is unchanged
     */
    void store(int value);
}
