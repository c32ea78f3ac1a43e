package dev.moroutine.internal.shared;

import dev.moroutine.shared.SharedValue;
import dev.moroutine.shared.Struct;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.SequencedMap;

/**
 * The implementation of {@link Struct}: one cell per component, at the offsets of its {@link StructDesc}.
 * Each descriptor has its own final subclass, which {@link StructAccessors} generates and
 * {@link StructDesc} instantiates: it loads and stores whole records ({@link #load}, {@link #check},
 * {@link #storeRecord}, {@link #write}). A subclass, rather than a generated object that every cell
 * calls, so that a call site of {@code load} or {@code store} in user code profiles the record type
 * it uses and inlines its class; one shared call site inside this class would see every record type
 * of the program and turn megamorphic. The class is open for those subclasses only: its
 * constructor and abstract methods are package-private.
 *
 * @param <R> the record type
 */
public abstract non-sealed class StructCell<R extends Record> extends AbstractCell implements Struct<R> {

    private final StructDesc<R> struct;
    /** The member cells, by component; the generated subclass reads them, with {@link #segment} and {@link #offset}. */
    final Cell[] cells;
    private final SequencedMap<String, SharedValue> fields;

    /** Called by the generated subclass's constructor, of the same parameters. */
    StructCell(StructDesc<R> struct, MemorySegment segment, long offset) {
        super(struct, segment, offset);
        this.struct = struct;
        int n = struct.names().size();
        cells = new Cell[n];
        SequencedMap<String, SharedValue> map = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            SharedValue field = struct.member(i).at(segment, offset + struct.offset(i));
            cells[i] = (Cell) field;
            map.put(struct.names().get(i), field);
        }
        fields = Collections.unmodifiableSequencedMap(map);
    }

    @Override
    public Class<R> type() {
        return struct.type();
    }

    /** Reads every field into a new record: generated, it calls the constructor of R. */
    @Override
    public abstract R load();

    @Override
    public final void store(R value) {
        Objects.requireNonNull(value, "value");
        storeRecord(value);
    }

    /**
     * Checks every component of {@code record} against its field and writes nothing: what refuses
     * a store, with the component's name in the message. Generated.
     *
     * @throws IllegalArgumentException if a component does not fit its field
     * @throws NullPointerException if a component that is not a lock is null
     */
    abstract void check(Object record);

    /** {@link #check}, then {@link #write}, reading each component once. Generated. */
    abstract void storeRecord(Object record);

    /** Writes every field from a record that passed {@link #check}. Generated. */
    abstract void write(Object record);

    @Override
    public SequencedMap<String, SharedValue> fields() {
        return fields;
    }

    private SharedValue field(String name) {
        Objects.requireNonNull(name, "name");
        SharedValue field = fields.get(name);
        if (field == null) {
            throw new IllegalArgumentException("record " + struct.type().getSimpleName() + " has no component \"" + name
                    + "\"; its components are " + fields.keySet());
        }
        return field;
    }

    @Override
    public <V extends SharedValue> V field(String name, Class<V> type) {
        Objects.requireNonNull(type, "type");
        SharedValue field = field(name);
        if (!type.isInstance(field)) {
            throw new IllegalArgumentException(struct.type().getSimpleName() + "." + name + " is a " + field.descriptor()
                    + " (" + Desc.publicType(field.getClass()) + "), not a " + type.getSimpleName());
        }
        return type.cast(field);
    }

    @Override
    @SuppressWarnings("unchecked") // checked: the field's record class is type
    public <S extends Record> Struct<S> structField(String name, Class<S> type) {
        Objects.requireNonNull(type, "type");
        SharedValue field = field(name);
        if (!(field instanceof Struct<?> nested) || nested.type() != type) {
            throw new IllegalArgumentException(struct.type().getSimpleName() + "." + name + " is a " + field.descriptor()
                    + ", not a struct(" + type.getSimpleName() + ")");
        }
        return (Struct<S>) nested;
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.instance(value, struct.type(), desc);
        check(value);
    }

    @Override
    public void storeValue(Object value) {
        store(struct.type().cast(value));
    }
}
