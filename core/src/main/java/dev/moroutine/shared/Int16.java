package dev.moroutine.shared;

/**
 * A shared {@code int16}: a signed 16-bit integer. Made by {@code Shared.shared(int16)}.
 *
 * <p>Thread-safe: each {@link #load()} and {@link #store} is a single access that is never torn
 * (the JVM's <em>opaque</em> mode) but orders nothing around it. To publish it together with other
 * data, guard both with a {@link Mutex} or {@link RwLock}, or use an atomic.
 */
public sealed interface Int16 extends SharedValue permits dev.moroutine.internal.shared.Int16Cell {

    /**
     * Reads the value.
     *
     * @return the value
     */
    short load();

    /**
     * Writes the value.
     *
     * @param value the new value
     */
    void store(short value);
}
