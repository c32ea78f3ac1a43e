package dev.moroutine.internal.shared;

import dev.moroutine.shared.Descriptor;
import dev.moroutine.shared.SharedValue;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The implementation of {@link Descriptor}: a name, a layout, the Java type a struct or tuple
 * member of it loads as, and a factory of views.
 *
 * @param <V> the type of the values it describes
 */
public abstract non-sealed class Desc<V extends SharedValue> implements Descriptor<V> {

    private final String name;
    private final Class<?> valueType;
    private final boolean ownCacheLine;

    Desc(String name, Class<?> valueType, boolean ownCacheLine) {
        this.name = name;
        this.valueType = valueType;
        this.ownCacheLine = ownCacheLine;
    }

    /** A view of the value at {@code offset} of {@code segment}, which has been checked to fit. */
    abstract V at(MemorySegment segment, long offset);

    /** What a struct component or tuple element of this descriptor loads as: int.class, String.class, List.class, a record class, Mutex.class. */
    final Class<?> valueType() {
        return valueType;
    }

    @Override
    public final String toString() {
        return name;
    }

    /**
     * The simple name of the API interface of a shared value's class, as its user knows it
     * ({@code Int32Atomic}, {@code Struct}), not its implementation; for messages. The class of a
     * struct is generated per record type ({@link StructCell}), so the interface may be its superclass's.
     *
     * @param type the class of a shared value
     * @return the interface's simple name, or {@code SharedValue}'s if there is none
     */
    public static String publicType(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> face : c.getInterfaces()) {
                if (SharedValue.class.isAssignableFrom(face) && face != SharedValue.class) {
                    return face.getSimpleName();
                }
            }
        }
        return SharedValue.class.getSimpleName();
    }

    /**
     * Allocates a zeroed value. Atomics and locks get a cache line of their own (see {@link Layouts}).
     *
     * @param arena where the memory comes from
     * @return the value
     */
    public final V allocate(Arena arena) {
        Objects.requireNonNull(arena, "arena");
        return allocate(arena, false);
    }

    /**
     * Allocates a zeroed value where other processes can map it while {@link SharedFiles} is
     * enabled, else from {@link Arena#ofAuto()}.
     *
     * @return the value
     */
    public final V allocate() {
        return allocate(null, true);
    }

    private V allocate(Arena arena, boolean shareable) {
        MemoryLayout layout = layout();
        long size = layout.byteSize();
        long alignment = layout.byteAlignment();
        if (ownCacheLine) {
            size = Layouts.alignUp(size, Layouts.CACHE_LINE);
            alignment = Math.max(alignment, Layouts.CACHE_LINE);
        }
        MemorySegment memory = shareable ? SharedFiles.allocate(size, alignment) : null;
        if (memory == null) {
            memory = (arena != null ? arena : Arena.ofAuto()).allocate(size, alignment);
        }
        return at(memory, 0);
    }

    /**
     * Views existing memory as a value of this descriptor.
     *
     * @param segment native, writable memory
     * @param offset where the value starts
     * @return the view
     * @throws IllegalArgumentException if the segment is on the heap or read-only, or the address is misaligned
     * @throws IndexOutOfBoundsException if the value does not fit in the segment
     */
    public final V view(MemorySegment segment, long offset) {
        Objects.requireNonNull(segment, "segment");
        MemoryLayout layout = layout();
        long size = layout.byteSize();
        if (offset < 0 || offset > segment.byteSize() - size) {
            throw new IndexOutOfBoundsException(name + " needs " + size + " bytes at offset " + offset
                    + ", but the segment has " + segment.byteSize() + " bytes");
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException("shared values live in native memory; " + segment
                    + " is on the Java heap: allocate it from an Arena");
        }
        if (segment.isReadOnly()) {
            throw new IllegalArgumentException("shared values need writable memory; " + segment + " is read-only");
        }
        long alignment = layout.byteAlignment();
        if ((segment.address() + offset) % alignment != 0) {
            throw new IllegalArgumentException(name + " must sit at a multiple of " + alignment
                    + " bytes; address 0x" + Long.toHexString(segment.address() + offset) + " (offset " + offset + ") is not");
        }
        return at(segment, offset);
    }

    /** A descriptor whose views are made by a function. */
    static <V extends SharedValue> Desc<V> of(String name, MemoryLayout layout, Class<?> valueType, boolean ownCacheLine,
            Factory<V> factory) {
        return new Leaf<>(name, layout, valueType, ownCacheLine, factory);
    }

    /** Makes a view. */
    @FunctionalInterface
    interface Factory<V extends SharedValue> {
        V at(Desc<V> desc, MemorySegment segment, long offset);
    }

    private static final class Leaf<V extends SharedValue> extends Desc<V> {
        private final MemoryLayout layout;
        private final Factory<V> factory;

        Leaf(String name, MemoryLayout layout, Class<?> valueType, boolean ownCacheLine, Factory<V> factory) {
            super(name, valueType, ownCacheLine);
            this.layout = layout;
            this.factory = factory;
        }

        @Override
        public MemoryLayout layout() {
            return layout;
        }

        @Override
        V at(MemorySegment segment, long offset) {
            return factory.at(this, segment, offset);
        }
    }
}
