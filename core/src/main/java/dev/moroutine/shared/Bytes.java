package dev.moroutine.shared;

import java.lang.foreign.MemorySegment;

/**
 * A fixed number of shared bytes: {@code shared(bytes(32))}, or a {@code byte[]} record component
 * declared with {@link MaxBytes}.
 *
 * <p>Thread-safe, but {@link #load()} and {@link #store} copy byte by byte and are not atomic as a
 * whole: a reader racing a writer may see a mix of both. Guard them with a lock when that matters.
 */
public sealed interface Bytes extends SharedValue permits dev.moroutine.internal.shared.BytesCell {

    /**
     * The number of bytes.
     *
     * @return the size
     */
    int size();

    /**
     * Copies the bytes out.
     *
     * @return a new array of {@link #size()} bytes
     */
    byte[] load();

    /**
     * Copies {@code value} in; it must have exactly {@link #size()} bytes.
     *
     * @param value the bytes
     * @throws IllegalArgumentException if {@code value.length != size()}; the memory is unchanged
     * @throws NullPointerException if {@code value} is null
     */
    void store(byte[] value);

    /**
     * The bytes themselves, for direct access: a live slice of shared memory of {@link #size()}
     * bytes (writes through it are seen by everyone; access past the end throws
     * {@link IndexOutOfBoundsException}).
     *
     * @return the view
     */
    MemorySegment view();
}
