package dev.moroutine.shared;

/**
 * A shared {@code int8}: a signed byte. Made by {@code Shared.shared(int8)}.
 *
 * <p>Thread-safe: each {@link #load()} and {@link #store} is a single access that is never torn
 * (the JVM's <em>opaque</em> mode) but orders nothing around it. To publish it together with other
 * data, guard both with a {@link Mutex} or {@link RwLock}, or use an atomic.
 */
public sealed interface Int8 extends SharedValue permits dev.moroutine.internal.shared.Int8Cell {

    /**
     * Reads the value.
     *
     * @return the value
     */
    byte load();

    /**
     * Writes the value.
     *
     * @param value the new value
     */
    void store(byte value);
}
