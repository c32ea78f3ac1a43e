package dev.moroutine.internal.shared;

import dev.moroutine.shared.Descriptor;
import dev.moroutine.shared.MaxBytes;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.RwLock;
import dev.moroutine.shared.Struct;
import dev.moroutine.shared.StructDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The implementation of {@link StructDescriptor}: a record class, a descriptor per component, and
 * the method handles that take records apart and build them, from which {@link StructAccessors}
 * generates the class of its cells, which loads and stores them ({@link #at}).
 *
 * <p>A component whose type could still be given a descriptor with {@link #with} ({@code List},
 * or a {@code String}/{@code byte[]} without {@link MaxBytes}) does not fail at once: the
 * descriptor is incomplete, and using it ({@link #layout()}, allocating) throws the reason. Any
 * other unsupported type fails at once.
 *
 * @param <R> the record type
 */
public final class StructDesc<R extends Record> extends Desc<Struct<R>> implements StructDescriptor<R> {

    private static final String SUPPORTED = "boolean, byte, short, int, long, float, double; String and byte[] with"
            + " @MaxBytes(n); records; Mutex; RwLock; and any of these or a List given a descriptor with"
            + " struct(…).with(component, descriptor)";

    private static final ClassValue<StructDesc<?>> PLAIN = new ClassValue<>() {
        @Override
        protected StructDesc<?> computeValue(Class<?> type) {
            return build(type.asSubclass(Record.class), Map.of(), new ArrayDeque<>());
        }
    };

    private final Class<R> type;
    private final Map<String, Desc<?>> overrides;
    private final List<String> names;
    /** One per component; {@code null} where {@link #problem} explains why. */
    private final List<Desc<?>> members;
    private final String problem;
    private final MemoryLayout layout;
    private final long[] offsets;
    private final MethodHandle constructor;
    private final List<MethodHandle> accessors;
    /**
     * The constructor of the generated class of this descriptor's cells, {@code (StructDesc, MemorySegment, long)StructCell}:
     * generated at the first cell, so that a descriptor only passed through {@link #with} generates nothing.
     */
    private volatile MethodHandle cell;

    private StructDesc(String name, Class<R> type, Map<String, Desc<?>> overrides, List<String> names,
            List<Desc<?>> members, String problem, MethodHandle constructor, List<MethodHandle> accessors) {
        super(name, type, false);
        this.type = type;
        this.overrides = overrides;
        this.names = names;
        this.members = members;
        this.problem = problem;
        this.constructor = constructor;
        this.accessors = accessors;
        if (problem == null) {
            List<MemoryLayout> laid = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                laid.add(members.get(i).layout().withName(names.get(i)));
            }
            layout = Layouts.struct(type.getSimpleName(), laid);
            offsets = Layouts.offsets(laid);
        } else {
            layout = null;
            offsets = null;
        }
    }

    /**
     * The descriptor of a record class, with every component laid out by its type.
     *
     * @param type the record class
     * @param <R> the record type
     * @return the descriptor, cached per class
     * @throws IllegalArgumentException if a component's type is not supported, or the record is not accessible
     */
    @SuppressWarnings("unchecked") // PLAIN maps each class to its own descriptor
    public static <R extends Record> StructDesc<R> of(Class<R> type) {
        Objects.requireNonNull(type, "type");
        if (!type.isRecord()) {
            throw new IllegalArgumentException(type.getName() + " is not a record; a shared struct is laid out from a record class");
        }
        return (StructDesc<R>) PLAIN.get(type);
    }

    private static <R extends Record> StructDesc<R> build(Class<R> type, Map<String, Desc<?>> overrides, Deque<Class<?>> building) {
        if (building.contains(type)) {
            throw new IllegalArgumentException("record " + type.getName() + " contains itself (through "
                    + building.stream().map(Class::getSimpleName).collect(Collectors.joining(" → ")) + "), which no fixed-size struct can");
        }
        building.push(type);
        try {
            RecordComponent[] components = type.getRecordComponents();
            List<String> names = new ArrayList<>();
            List<Desc<?>> members = new ArrayList<>();
            String problem = null;
            for (RecordComponent component : components) {
                names.add(component.getName());
                Desc<?> given = overrides.get(component.getName());
                if (given != null) {
                    members.add(given);
                    continue;
                }
                Object mapped = byType(type, component, building);
                if (mapped instanceof Desc<?> desc) {
                    members.add(desc);
                } else {
                    members.add(null);
                    if (problem == null) {
                        problem = (String) mapped;
                    }
                }
            }
            String name = "struct(" + type.getSimpleName() + ")" + overrides.entrySet().stream()
                    .map(e -> ".with(\"" + e.getKey() + "\", " + e.getValue() + ")").collect(Collectors.joining());
            return new StructDesc<>(name, type, Map.copyOf(overrides), List.copyOf(names),
                    java.util.Collections.unmodifiableList(members), problem, constructor(type, components), accessors(type, components));
        } finally {
            building.pop();
        }
    }

    /** The descriptor a component's type implies, or (as a String) why it needs one from {@code with}. */
    private static Object byType(Class<?> record, RecordComponent component, Deque<Class<?>> building) {
        Class<?> t = component.getType();
        String where = record.getSimpleName() + "." + component.getName();
        MaxBytes max = component.getAnnotation(MaxBytes.class);
        if (max != null && t != String.class && t != byte[].class) {
            throw new IllegalArgumentException("@MaxBytes is for String and byte[] components; " + where + " is a " + t.getName());
        }
        if (max != null && max.value() <= 0) {
            throw new IllegalArgumentException("@MaxBytes on " + where + " must be at least 1, was " + max.value());
        }
        if (t == boolean.class) return Descs.BOOL;
        if (t == byte.class) return Descs.INT8;
        if (t == short.class) return Descs.INT16;
        if (t == int.class) return Descs.INT32;
        if (t == long.class) return Descs.INT64;
        if (t == float.class) return Descs.FLOAT32;
        if (t == double.class) return Descs.FLOAT64;
        if (t == Mutex.class) return Descs.MUTEX;
        if (t == RwLock.class) return Descs.RW_LOCK;
        if (t == String.class) {
            return max != null ? Descs.string(max.value()) : where + " is a String and needs a size: annotate it @MaxBytes(n),"
                    + " or give it one with struct(" + record.getSimpleName() + ".class).with(\"" + component.getName() + "\", string(n))";
        }
        if (t == byte[].class) {
            return max != null ? Descs.bytes(max.value()) : where + " is a byte[] and needs a size: annotate it @MaxBytes(n),"
                    + " or give it one with struct(" + record.getSimpleName() + ".class).with(\"" + component.getName() + "\", bytes(n))";
        }
        if (t.isRecord()) {
            return build(t.asSubclass(Record.class), Map.of(), building);
        }
        if (t == List.class) {
            return where + " is a List: give it a tuple with struct(" + record.getSimpleName() + ".class).with(\""
                    + component.getName() + "\", tuple(…))";
        }
        throw new IllegalArgumentException("component " + where + " has type " + component.getGenericType().getTypeName()
                + ", which a shared struct cannot hold; supported: " + SUPPORTED);
    }

    private static MethodHandle constructor(Class<?> type, RecordComponent[] components) {
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < types.length; i++) {
            types[i] = components[i].getType();
        }
        try {
            Constructor<?> c = type.getDeclaredConstructor(types);
            c.setAccessible(true);
            return MethodHandles.lookup().unreflectConstructor(c);
        } catch (ReflectiveOperationException | InaccessibleObjectException | SecurityException e) {
            throw inaccessible(type, e);
        }
    }

    private static List<MethodHandle> accessors(Class<?> type, RecordComponent[] components) {
        List<MethodHandle> accessors = new ArrayList<>();
        try {
            for (RecordComponent component : components) {
                var accessor = component.getAccessor();
                accessor.setAccessible(true);
                accessors.add(MethodHandles.lookup().unreflect(accessor));
            }
        } catch (ReflectiveOperationException | InaccessibleObjectException | SecurityException e) {
            throw inaccessible(type, e);
        }
        return List.copyOf(accessors);
    }

    private static IllegalArgumentException inaccessible(Class<?> type, Exception e) {
        return new IllegalArgumentException("record " + type.getName() + " is not accessible to module dev.moroutine,"
                + " which builds and reads its instances: make it public in an exported package, or open its package"
                + " to dev.moroutine (" + e.getMessage() + ")", e);
    }

    @Override
    public Class<R> type() {
        return type;
    }

    @Override
    public StructDescriptor<R> with(String component, Descriptor<?> descriptor) {
        Objects.requireNonNull(component, "component");
        Objects.requireNonNull(descriptor, "descriptor");
        int index = names.indexOf(component);
        if (index < 0) {
            throw new IllegalArgumentException("record " + type.getSimpleName() + " has no component \"" + component
                    + "\"; its components are " + names);
        }
        Desc<?> desc = (Desc<?>) descriptor;
        Class<?> wanted = type.getRecordComponents()[index].getType();
        if (desc.valueType() != wanted) {
            throw new IllegalArgumentException(type.getSimpleName() + "." + component + " is a " + wanted.getSimpleName()
                    + ", but " + desc + " loads a " + desc.valueType().getSimpleName() + "; fitting descriptors: "
                    + Descs.fitting(wanted));
        }
        Map<String, Desc<?>> more = new LinkedHashMap<>(overrides);
        more.put(component, desc);
        return build(type, more, new ArrayDeque<>());
    }

    private void requireComplete() {
        if (problem != null) {
            throw new IllegalArgumentException(this + " is incomplete: " + problem);
        }
    }

    @Override
    public MemoryLayout layout() {
        requireComplete();
        return layout;
    }

    @Override
    @SuppressWarnings("unchecked") // the generated class is the cell class of this descriptor, so of R
    Struct<R> at(MemorySegment segment, long offset) {
        requireComplete();
        MethodHandle generated = cell;
        if (generated == null) {
            // Threads that race here each generate a class and make their cell of it: any of them is right (a call site
            // that sees two is bimorphic, still inlined), and the one stored last makes every later cell.
            generated = StructAccessors.generate(this, constructor, accessors);
            cell = generated;
        }
        try {
            return (StructCell<R>) generated.invokeExact(this, segment, offset);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("the constructor of a struct cell threw " + e, e); // it declares no checked exception
        }
    }

    List<String> names() {
        return names;
    }

    /** The components laid out otherwise than by their type ({@link #with}), in the order given. */
    Map<String, Desc<?>> overrides() {
        return overrides;
    }

    Desc<?> member(int i) {
        return members.get(i);
    }

    long offset(int i) {
        return offsets[i];
    }
}
