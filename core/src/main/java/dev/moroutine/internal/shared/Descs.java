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
import dev.moroutine.shared.StructDescriptor;
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

    /**
     * A descriptor as text that {@link #parse} makes again in another JVM: a fixed descriptor's
     * name, {@code string(n)}, {@code bytes(n)}, {@code tuple(a,b)}, or {@code struct(binary.Name)}
     * followed by {@code {component=spec;…}} for the components given with {@code with}.
     *
     * @param descriptor the descriptor
     * @return its text
     */
    public static String spec(Descriptor<?> descriptor) {
        if (descriptor instanceof TupleDesc tuple) {
            StringBuilder text = new StringBuilder("tuple(");
            for (int i = 0; i < tuple.size(); i++) {
                text.append(i == 0 ? "" : ",").append(spec(tuple.element(i)));
            }
            return text.append(')').toString();
        }
        if (descriptor instanceof StructDesc<?> struct) {
            StringBuilder text = new StringBuilder("struct(").append(struct.type().getName()).append(')');
            if (!struct.overrides().isEmpty()) {
                text.append('{');
                struct.overrides().forEach((component, desc) -> text.append(component).append('=').append(spec(desc)).append(';'));
                text.append('}');
            }
            return text.toString();
        }
        return descriptor.toString();
    }

    /**
     * Makes a descriptor from its {@link #spec}.
     *
     * @param spec the text
     * @param loader where struct records are found
     * @return the descriptor
     * @throws IllegalArgumentException if the text names no descriptor, or a record that cannot be found
     */
    public static Desc<?> parse(String spec, ClassLoader loader) {
        int[] at = {0};
        Desc<?> desc = parse(spec, at, loader);
        if (at[0] != spec.length()) {
            throw new IllegalArgumentException("not a shared-memory descriptor: " + spec);
        }
        return desc;
    }

    private static Desc<?> parse(String spec, int[] at, ClassLoader loader) {
        int start = at[0];
        int open = start;
        while (open < spec.length() && "(,;)}".indexOf(spec.charAt(open)) < 0) {
            open++;
        }
        String word = spec.substring(start, open);
        if (open == spec.length() || spec.charAt(open) != '(') {
            at[0] = open;
            return FIXED.stream().filter(d -> d.toString().equals(word)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("not a shared-memory descriptor: " + word));
        }
        at[0] = open + 1;
        switch (word) {
            case "tuple" -> {
                List<Desc<?>> elements = new ArrayList<>();
                do {
                    elements.add(parse(spec, at, loader));
                } while (spec.charAt(at[0]++) == ',');
                return new TupleDesc(elements);
            }
            case "string", "bytes" -> {
                int close = spec.indexOf(')', at[0]);
                int n = Integer.parseInt(spec.substring(at[0], close));
                at[0] = close + 1;
                return word.equals("string") ? string(n) : bytes(n);
            }
            case "struct" -> {
                int close = spec.indexOf(')', at[0]);
                String name = spec.substring(at[0], close);
                at[0] = close + 1;
                Class<? extends Record> type;
                try {
                    type = Class.forName(name, true, loader).asSubclass(Record.class);
                } catch (ClassNotFoundException | ClassCastException e) {
                    throw new IllegalArgumentException("no record " + name + " for a shared struct: " + e, e);
                }
                StructDescriptor<?> struct = StructDesc.of(type);
                if (at[0] < spec.length() && spec.charAt(at[0]) == '{') {
                    at[0]++;
                    while (spec.charAt(at[0]) != '}') {
                        int equals = spec.indexOf('=', at[0]);
                        String component = spec.substring(at[0], equals);
                        at[0] = equals + 1;
                        struct = struct.with(component, parse(spec, at, loader));
                        at[0]++; // ';'
                    }
                    at[0]++;
                }
                return (Desc<?>) struct;
            }
            default -> throw new IllegalArgumentException("not a shared-memory descriptor: " + spec);
        }
    }
}
