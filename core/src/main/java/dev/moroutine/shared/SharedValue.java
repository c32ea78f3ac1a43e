package dev.moroutine.shared;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * A typed view of shared, off-heap memory: a scalar, an atomic, a struct, a tuple, bytes, a string
 * or a lock. Every value is fully described by {@code (segment(), offset(), layout())}: no state
 * lives in the Java object, so two views of the same bytes (say, one made on a worker with
 * {@link Shared#view}) are the same value, and a later process backend can map the same bytes
 * from a file.
 *
 * <p>Values are thread-safe to share: pass one as a moroutine argument and the worker sees the
 * same memory. What each operation guarantees about ordering is stated on its type; see the
 * package documentation for the summary.
 */
public sealed interface SharedValue
        permits Bool, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Float32, Float64,
                Int32Atomic, Int64Atomic, BoolAtomic, Struct, Tuple, Bytes, Str, Mutex, RwLock {

    /**
     * The memory this value lives in: the whole allocation, of which this value may be a part.
     *
     * @return the segment
     */
    MemorySegment segment();

    /**
     * Where this value starts in {@link #segment()}.
     *
     * @return the byte offset
     */
    long offset();

    /**
     * The value's layout: its size, alignment and members.
     *
     * @return the layout
     */
    MemoryLayout layout();

    /**
     * The descriptor this value was made from; {@code Shared.view(descriptor(), segment(), offset())}
     * makes another view of the same memory.
     *
     * @return the descriptor
     */
    Descriptor<?> descriptor();
}
