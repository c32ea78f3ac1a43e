package dev.moroutine.shared;

/**
 * A shared {@code float64}: an IEEE 754 double. Made by {@code Shared.shared(float64)}.
 *
 * <p>Thread-safe: each {@link #load()} and {@link #store} is a single access that is never torn
 * (the JVM's <em>opaque</em> mode) but orders nothing around it. To publish it together with other
 * data, guard both with a {@link Mutex} or {@link RwLock}, or use an atomic.
 */
public sealed interface Float64 extends SharedValue permits dev.moroutine.internal.shared.Float64Cell {

    /**
     * Reads the value.
     *
     * @return the value
     */
    double load();

    /**
     * Writes the value.
     *
     * @param value the new value
     */
    void store(double value);
}
