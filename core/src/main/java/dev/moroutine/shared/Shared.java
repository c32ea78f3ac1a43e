package dev.moroutine.shared;

import dev.moroutine.internal.shared.Desc;
import dev.moroutine.internal.shared.Descs;
import dev.moroutine.internal.shared.StructDesc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The entry points of shared memory: descriptors ({@link #int32}, {@link #string(int)},
 * {@link #tuple}, {@link #struct}), and allocation ({@link #shared(Descriptor)}, and the forms
 * that also store a first value: {@link #shared(int)}, {@link #shared(Record)} …). Meant to be
 * imported statically:
 *
 * <pre>{@code
 * import static dev.moroutine.shared.Shared.*;
 *
 * Int32Atomic hits = shared(int32Atomic);             // a standalone atomic
 * Tuple pair = shared(tuple(int32, bool));            // a tuple
 * Struct<Point> pos = shared(new Point(10, 20));      // a struct, initialised from a record
 * Mutex mu = shared(mutex);
 * }</pre>
 *
 * <p>Each descriptor is a {@code static final} field named as in the seed ({@code int32},
 * {@code bool}, {@code mutex} …); a value is always made by {@code shared(descriptor)}, zeroed, or by
 * {@code shared(value)} with a first value.
 *
 * <h2>Memory</h2>
 * Values are allocated zeroed, off the Java heap, from {@link Arena#ofAuto()}: the memory lives as
 * long as some value (or view) of it is reachable, and the garbage collector frees it after that,
 * so it is never freed under a reader. While a pool of worker JVMs is open (module
 * {@code dev.moroutine.isolated}), {@code shared(…)} allocates from files that those JVMs map
 * instead, so a value passed to one of their tasks is the same memory there. {@link #shared(Arena, Descriptor)} allocates from an arena of
 * your choice instead, for instance a confined or shared arena you close to free the memory at a
 * known time; after that, every use of its values throws {@link IllegalStateException}, so close it
 * only when no thread uses them (and none waits on them).
 *
 * <p>All methods are thread-safe.
 */
public final class Shared {

    /** {@code bool}: one byte, {@code false} or {@code true}; values are {@link Bool}. */
    public static final Descriptor<Bool> bool = Descs.BOOL;
    /** {@code int8}: a signed byte; values are {@link Int8}. */
    public static final Descriptor<Int8> int8 = Descs.INT8;
    /** {@code int16}: a signed 16-bit integer; values are {@link Int16}. */
    public static final Descriptor<Int16> int16 = Descs.INT16;
    /** {@code int32}: a signed 32-bit integer; values are {@link Int32}. */
    public static final Descriptor<Int32> int32 = Descs.INT32;
    /** {@code int64}: a signed 64-bit integer; values are {@link Int64}. */
    public static final Descriptor<Int64> int64 = Descs.INT64;
    /** {@code uint8}: an unsigned byte, as an {@code int}; values are {@link Uint8}. */
    public static final Descriptor<Uint8> uint8 = Descs.UINT8;
    /** {@code uint16}: an unsigned 16-bit integer, as an {@code int}; values are {@link Uint16}. */
    public static final Descriptor<Uint16> uint16 = Descs.UINT16;
    /** {@code uint32}: an unsigned 32-bit integer, as a {@code long}; values are {@link Uint32}. */
    public static final Descriptor<Uint32> uint32 = Descs.UINT32;
    /** {@code float32}: an IEEE 754 single; values are {@link Float32}. */
    public static final Descriptor<Float32> float32 = Descs.FLOAT32;
    /** {@code float64}: an IEEE 754 double; values are {@link Float64}. */
    public static final Descriptor<Float64> float64 = Descs.FLOAT64;
    /** {@code int32Atomic}: a 32-bit integer with atomic operations and wait/wake; values are {@link Int32Atomic}. */
    public static final Descriptor<Int32Atomic> int32Atomic = Descs.INT32_ATOMIC;
    /** {@code int64Atomic}: a 64-bit integer with atomic operations; values are {@link Int64Atomic}. */
    public static final Descriptor<Int64Atomic> int64Atomic = Descs.INT64_ATOMIC;
    /** {@code boolAtomic}: a boolean with atomic operations; values are {@link BoolAtomic}. */
    public static final Descriptor<BoolAtomic> boolAtomic = Descs.BOOL_ATOMIC;
    /** {@code mutex}: a lock; values are {@link Mutex}. */
    public static final Descriptor<Mutex> mutex = Descs.MUTEX;
    /** {@code rwLock}: a readers-writer lock; values are {@link RwLock}. */
    public static final Descriptor<RwLock> rwLock = Descs.RW_LOCK;

    private Shared() {}

    /**
     * {@code string(maxBytes)}: a UTF-8 string of at most {@code maxBytes} bytes; values are {@link Str}.
     *
     * @param maxBytes the most UTF-8 bytes it holds
     * @return the descriptor
     * @throws IllegalArgumentException if {@code maxBytes} is less than 1
     */
    public static Descriptor<Str> string(int maxBytes) {
        return Descs.string(maxBytes);
    }

    /**
     * {@code bytes(size)}: exactly {@code size} bytes; values are {@link Bytes}.
     *
     * @param size the number of bytes
     * @return the descriptor
     * @throws IllegalArgumentException if {@code size} is less than 1
     */
    public static Descriptor<Bytes> bytes(int size) {
        return Descs.bytes(size);
    }

    /**
     * {@code tuple(elements…)}: a fixed-length sequence of values of these descriptors, which may
     * themselves be tuples or structs; values are {@link Tuple}.
     *
     * @param elements the elements' descriptors, in order
     * @return the descriptor
     * @throws IllegalArgumentException if there are none, or one is an incomplete struct descriptor
     * @throws NullPointerException if one is null
     */
    public static Descriptor<Tuple> tuple(Descriptor<?>... elements) {
        return Descs.tuple(elements);
    }

    /**
     * The struct descriptor of a record class; values are {@link Struct}. Each component becomes a
     * field, in declaration order, laid out by its type:
     *
     * <ul>
     *   <li>{@code boolean}, {@code byte}, {@code short}, {@code int}, {@code long}, {@code float},
     *       {@code double}: {@code bool}, {@code int8}, {@code int16}, {@code int32}, {@code int64},
     *       {@code float32}, {@code float64};</li>
     *   <li>{@code String} and {@code byte[]} with {@link MaxBytes @MaxBytes(n)}: {@code string(n)}
     *       and {@code bytes(n)};</li>
     *   <li>a record: its struct, nested in place;</li>
     *   <li>{@link Mutex} and {@link RwLock}: the lock itself, in place.</li>
     * </ul>
     *
     * {@link StructDescriptor#with} lays a component out otherwise (an atomic, an unsigned type) and
     * is how a {@code List} component becomes a tuple; until then, such a descriptor is incomplete,
     * and using it throws {@link IllegalArgumentException} saying so.
     *
     * <p>The record must be accessible to this module: public in an exported package, or in a
     * package open to {@code dev.moroutine} (every package of the class path is).
     *
     * @param type the record class
     * @param <R> the record type
     * @return the descriptor
     * @throws IllegalArgumentException if a component has an unsupported type (the message names
     *     the component and the supported types), a record contains itself, or the record is not accessible
     * @throws NullPointerException if {@code type} is null
     */
    public static <R extends Record> StructDescriptor<R> struct(Class<R> type) {
        return StructDesc.of(type);
    }

    /**
     * Allocates a zeroed value, from a GC-managed arena (see the class documentation).
     *
     * @param descriptor what to allocate
     * @param <V> the value's type
     * @return the value
     * @throws IllegalArgumentException if {@code descriptor} is an incomplete struct descriptor
     * @throws NullPointerException if {@code descriptor} is null
     */
    public static <V extends SharedValue> V shared(Descriptor<V> descriptor) {
        Objects.requireNonNull(descriptor, "descriptor");
        return ((Desc<V>) descriptor).allocate();
    }

    /**
     * Allocates a zeroed value from {@code arena}; closing the arena frees it.
     *
     * @param arena where the memory comes from
     * @param descriptor what to allocate
     * @param <V> the value's type
     * @return the value
     * @throws IllegalArgumentException if {@code descriptor} is an incomplete struct descriptor
     * @throws IllegalStateException if the arena is closed
     * @throws NullPointerException if an argument is null
     */
    public static <V extends SharedValue> V shared(Arena arena, Descriptor<V> descriptor) {
        Objects.requireNonNull(descriptor, "descriptor");
        return ((Desc<V>) descriptor).allocate(arena);
    }

    /**
     * Allocates a struct holding {@code value}: {@code shared(new Point(10, 20))}.
     *
     * @param value the initial value
     * @param <R> the record type
     * @return the struct
     * @throws IllegalArgumentException as {@link #struct(Class)} and {@link Struct#store}
     * @throws NullPointerException if {@code value} or one of its object components is null
     */
    public static <R extends Record> Struct<R> shared(R value) {
        Objects.requireNonNull(value, "value");
        @SuppressWarnings("unchecked") // a record's getClass() is its own class
        Class<R> type = (Class<R>) value.getClass();
        Struct<R> struct = shared(struct(type));
        struct.store(value);
        return struct;
    }

    /**
     * Allocates an {@code int32} holding {@code value}.
     *
     * @param value the initial value
     * @return the value
     */
    public static Int32 shared(int value) {
        Int32 cell = shared(int32);
        cell.store(value);
        return cell;
    }

    /**
     * Allocates an {@code int64} holding {@code value}.
     *
     * @param value the initial value
     * @return the value
     */
    public static Int64 shared(long value) {
        Int64 cell = shared(int64);
        cell.store(value);
        return cell;
    }

    /**
     * Allocates a {@code bool} holding {@code value}.
     *
     * @param value the initial value
     * @return the value
     */
    public static Bool shared(boolean value) {
        Bool cell = shared(bool);
        cell.store(value);
        return cell;
    }

    /**
     * Views existing memory as a value: the value at {@code offset} of {@code segment}, as
     * {@code descriptor} lays it out. Every shared value is {@code (segment, offset, descriptor)},
     * so {@code view(v.descriptor(), v.segment(), v.offset())} is the same value as {@code v}; this
     * is also how memory mapped from a file becomes shared values.
     *
     * @param descriptor the layout
     * @param segment native, writable memory, which must stay alive while the view is used
     * @param offset where the value starts
     * @param <V> the value's type
     * @return the view
     * @throws IndexOutOfBoundsException if the value does not fit in the segment (with the sizes)
     * @throws IllegalArgumentException if the segment is on the heap or read-only, the address is
     *     not aligned for the layout, or the descriptor is an incomplete struct descriptor
     * @throws NullPointerException if an argument is null
     */
    public static <V extends SharedValue> V view(Descriptor<V> descriptor, MemorySegment segment, long offset) {
        Objects.requireNonNull(descriptor, "descriptor");
        return ((Desc<V>) descriptor).view(segment, offset);
    }
}
