package dev.moroutine.internal.shared;

import dev.moroutine.shared.Bool;
import dev.moroutine.shared.BoolAtomic;
import dev.moroutine.shared.Bytes;
import dev.moroutine.shared.Descriptor;
import dev.moroutine.shared.Float32;
import dev.moroutine.shared.Float64;
import dev.moroutine.shared.Int16;
import dev.moroutine.shared.Int32;
import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Int64;
import dev.moroutine.shared.Int64Atomic;
import dev.moroutine.shared.Int8;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.RwLock;
import dev.moroutine.shared.Str;
import dev.moroutine.shared.Tuple;
import dev.moroutine.shared.Uint16;
import dev.moroutine.shared.Uint32;
import dev.moroutine.shared.Uint8;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Every descriptor: the scalar, atomic and lock constants, and the factories of sized and composite ones. */
public final class Descs {

    /** {@code bool}. */
    public static final Desc<Bool> BOOL = Desc.of("bool", Layouts.BOOL, boolean.class, false, BoolCell::new);
    /** {@code int8}. */
    public static final Desc<Int8> INT8 = Desc.of("int8", Layouts.INT8, byte.class, false, Int8Cell::new);
    /** {@code int16}. */
    public static final Desc<Int16> INT16 = Desc.of("int16", Layouts.INT16, short.class, false, Int16Cell::new);
    /** {@code int32}. */
    public static final Desc<Int32> INT32 = Desc.of("int32", Layouts.INT32, int.class, false, Int32Cell::new);
    /** {@code int64}. */
    public static final Desc<Int64> INT64 = Desc.of("int64", Layouts.INT64, long.class, false, Int64Cell::new);
    /** {@code uint8}. */
    public static final Desc<Uint8> UINT8 = Desc.of("uint8", Layouts.INT8, int.class, false, Uint8Cell::new);
    /** {@code uint16}. */
    public static final Desc<Uint16> UINT16 = Desc.of("uint16", Layouts.INT16, int.class, false, Uint16Cell::new);
    /** {@code uint32}. */
    public static final Desc<Uint32> UINT32 = Desc.of("uint32", Layouts.INT32, long.class, false, Uint32Cell::new);
    /** {@code float32}. */
    public static final Desc<Float32> FLOAT32 = Desc.of("float32", Layouts.FLOAT32, float.class, false, Float32Cell::new);
    /** {@code float64}. */
    public static final Desc<Float64> FLOAT64 = Desc.of("float64", Layouts.FLOAT64, double.class, false, Float64Cell::new);
    /** {@code int32Atomic}. */
    public static final Desc<Int32Atomic> INT32_ATOMIC = Desc.of("int32Atomic", Layouts.INT32, int.class, true, Int32AtomicCell::new);
    /** {@code int64Atomic}. */
    public static final Desc<Int64Atomic> INT64_ATOMIC = Desc.of("int64Atomic", Layouts.INT64, long.class, true, Int64AtomicCell::new);
    /** {@code boolAtomic}. */
    public static final Desc<BoolAtomic> BOOL_ATOMIC = Desc.of("boolAtomic", Layouts.INT32, boolean.class, true, BoolAtomicCell::new);
    /** {@code mutex}. */
    public static final Desc<Mutex> MUTEX = Desc.of("mutex", Layouts.MUTEX, Mutex.class, true, MutexCell::new);
    /** {@code rwLock}. */
    public static final Desc<RwLock> RW_LOCK = Desc.of("rwLock", Layouts.RW_LOCK, RwLock.class, true, RwLockCell::new);

    private static final List<Desc<?>> FIXED = List.of(BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, FLOAT32,
            FLOAT64, INT32_ATOMIC, INT64_ATOMIC, BOOL_ATOMIC, MUTEX, RW_LOCK);

    private Descs() {}

    private static void requireSize(int size, String what) {
        if (size <= 0) {
            throw new IllegalArgumentException(what + " must be at least 1 byte, was " + size);
        }
    }

    /**
     * {@code string(maxBytes)}.
     *
     * @param maxBytes the most UTF-8 bytes
     * @return the descriptor
     * @throws IllegalArgumentException if {@code maxBytes} is less than 1
     */
    public static Desc<Str> string(int maxBytes) {
        requireSize(maxBytes, "the maximum size of string(n)");
        return Desc.of("string(" + maxBytes + ")", Layouts.string(maxBytes), String.class, false,
                (desc, segment, offset) -> new StrCell(desc, segment, offset, maxBytes));
    }

    /**
     * {@code bytes(size)}.
     *
     * @param size the number of bytes
     * @return the descriptor
     * @throws IllegalArgumentException if {@code size} is less than 1
     */
    public static Desc<Bytes> bytes(int size) {
        requireSize(size, "the size of bytes(n)");
        return Desc.of("bytes(" + size + ")", Layouts.bytes(size), byte[].class, false,
                (desc, segment, offset) -> new BytesCell(desc, segment, offset, size));
    }

    /**
     * {@code tuple(elements…)}.
     *
     * @param elements the elements' descriptors
     * @return the descriptor
     * @throws IllegalArgumentException if there are none
     * @throws NullPointerException if the array or one of them is null
     */
    public static Desc<Tuple> tuple(Descriptor<?>... elements) {
        Objects.requireNonNull(elements, "elements");
        if (elements.length == 0) {
            throw new IllegalArgumentException("a tuple needs at least 1 element, was given none");
        }
        List<Desc<?>> descs = new ArrayList<>();
        for (int i = 0; i < elements.length; i++) {
            Desc<?> element = (Desc<?>) Objects.requireNonNull(elements[i], "element " + i + " of the tuple is null");
            element.layout(); // an incomplete struct fails here, with its reason
            descs.add(element);
        }
        return new TupleDesc(descs);
    }

    /** The descriptors that load {@code type}, for messages. */
    static String fitting(Class<?> type) {
        Stream<String> fixed = FIXED.stream().filter(d -> d.valueType() == type).map(Object::toString);
        Stream<String> sized = type == String.class ? Stream.of("string(n)")
                : type == byte[].class ? Stream.of("bytes(n)")
                : type == List.class ? Stream.of("tuple(…)")
                : type.isRecord() ? Stream.of("struct(" + type.getSimpleName() + ".class)")
                : Stream.empty();
        String all = Stream.concat(fixed, sized).collect(Collectors.joining(", "));
        return all.isEmpty() ? "none" : all;
    }
}
