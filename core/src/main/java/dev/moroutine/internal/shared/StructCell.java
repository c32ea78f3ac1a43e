package dev.moroutine.internal.shared;

import dev.moroutine.shared.SharedValue;
import dev.moroutine.shared.Struct;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.SequencedMap;

/**
 * The implementation of {@link Struct}: one cell per component, at the offsets of its {@link StructDesc},
 * and the descriptor's generated {@link StructAccess}, which loads and stores whole records.
 *
 * @param <R> the record type
 */
public final class StructCell<R extends Record> extends AbstractCell implements Struct<R> {

    private final StructDesc<R> struct;
    /** The member cells, by component; the generated access reads them, with {@link #segment} and {@link #offset}. */
    final Cell[] cells;
    private final StructAccess access;
    private final SequencedMap<String, SharedValue> fields;

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
        access = struct.access();
    }

    @Override
    public Class<R> type() {
        return struct.type();
    }

    @Override
    @SuppressWarnings("unchecked") // the access calls the constructor of R
    public R load() {
        return (R) access.load(this);
    }

    @Override
    public void store(R value) {
        Objects.requireNonNull(value, "value");
        access.store(this, value);
    }

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
                    + " (" + publicType(field) + "), not a " + type.getSimpleName());
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

    /** The API interface a cell implements, for messages. */
    static String publicType(SharedValue value) {
        return value.getClass().getInterfaces()[0].getSimpleName();
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.instance(value, struct.type(), desc);
        access.check(this, value);
    }

    @Override
    public void storeValue(Object value) {
        store(struct.type().cast(value));
    }
}
