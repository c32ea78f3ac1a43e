package dev.moroutine.shared;

/**
 * A shared {@code bool}: one byte, 0 or 1. Made by {@code Shared.shared(bool)} or {@code Shared.shared(true)}.
 *
 * <p>Thread-safe: each {@link #load()} and {@link #store} is a single access that is never torn
 * (the JVM's <em>opaque</em> mode) but orders nothing around it. To publish it together with other
 * data, guard both with a {@link Mutex} or {@link RwLock}, or use an atomic.
 */
public sealed interface Bool extends SharedValue permits dev.moroutine.internal.shared.BoolCell {

    /**
     * Reads the value.
     *
     * @return the value
     */
    boolean load();

    /**
     * Writes the value.
     *
     * @param value the new value
     */
    void store(boolean value);
}
