package dev.moroutine.shared;

import java.lang.foreign.MemoryLayout;

/**
 * The type of a shared value: its layout and how to view it. Descriptors are the constants and
 * factories of {@link Shared} ({@code int32}, {@code string(64)}, {@code tuple(int32, bool)},
 * {@code struct(Point.class)}); {@link Shared#shared(Descriptor)} allocates a value of one, and
 * {@link Shared#view} views existing memory as one.
 *
 * <p>Immutable and thread-safe. {@code toString()} is the descriptor as written, e.g.
 * {@code "tuple(int32, string(16))"}.
 *
 * @param <V> the type of the values it describes
 */
public sealed interface Descriptor<V extends SharedValue> permits StructDescriptor, dev.moroutine.internal.shared.Desc {

    /**
     * The memory layout of one value: size, alignment, members (see the package documentation).
     *
     * @return the layout
     */
    MemoryLayout layout();
}
