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
 *
 * @param <R> the record type
 */
public final class StructCell<R extends Record> extends AbstractCell implements Struct<R> {

    private final StructDesc<R> struct;
    private final Cell[] cells;
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
    }

    @Override
    public Class<R> type() {
        return struct.type();
    }

    @Override
    public R load() {
        Object[] values = new Object[cells.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = cells[i].loadValue();
        }
        return struct.construct(values);
    }

    @Override
    public void store(R value) {
        Objects.requireNonNull(value, "value");
        Object[] values = components(value);
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                cells[i].storeValue(values[i]);
            }
        }
    }

    /** The record's component values, each checked against its field. */
    private Object[] components(Object value) {
        R record = struct.type().cast(value);
        Object[] values = new Object[cells.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = struct.component(record, i);
            String where = struct.type().getSimpleName() + "." + struct.names().get(i);
            if (values[i] == null) {
                if (cells[i] instanceof MutexCell || cells[i] instanceof RwLockCell) {
                    continue; // a lock is never copied, so there is nothing to check
                }
                throw new NullPointerException(where + " is null; a shared struct holds no nulls");
            }
            try {
                cells[i].checkValue(values[i]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        return values;
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
        components(value);
    }

    @Override
    public void storeValue(Object value) {
        store(struct.type().cast(value));
    }
}
