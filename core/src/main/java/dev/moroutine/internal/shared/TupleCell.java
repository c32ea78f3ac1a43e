package dev.moroutine.internal.shared;

import dev.moroutine.shared.SharedValue;
import dev.moroutine.shared.Tuple;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** The implementation of {@link Tuple}: one cell per element, at the offsets of its {@link TupleDesc}. */
public final class TupleCell extends AbstractCell implements Tuple {

    private final Cell[] cells;
    private final List<SharedValue> elements;

    TupleCell(TupleDesc tuple, MemorySegment segment, long offset) {
        super(tuple, segment, offset);
        SharedValue[] values = new SharedValue[tuple.size()];
        cells = new Cell[values.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = tuple.element(i).at(segment, offset + tuple.offset(i));
            cells[i] = (Cell) values[i];
        }
        elements = List.of(values);
    }

    @Override
    public int size() {
        return cells.length;
    }

    @Override
    public List<Object> load() {
        Object[] values = new Object[cells.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = cells[i].loadValue();
        }
        return List.of(values);
    }

    @Override
    public void store(List<?> values) {
        check(values);
        for (int i = 0; i < cells.length; i++) {
            cells[i].storeValue(values.get(i));
        }
    }

    private void check(Object value) {
        List<?> values = Values.instance(value, List.class, desc);
        if (values.size() != cells.length) {
            throw new IllegalArgumentException(desc + " has " + cells.length + " elements, was given " + values.size()
                    + ": " + Arrays.toString(values.toArray()));
        }
        for (int i = 0; i < cells.length; i++) {
            Object element = values.get(i);
            if (element == null) {
                throw new NullPointerException("element " + i + " of " + desc + " is null; a shared tuple holds no nulls");
            }
            try {
                cells[i].checkValue(element);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("element " + i + " of " + desc + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public List<SharedValue> elements() {
        return elements;
    }

    @Override
    public <V extends SharedValue> V element(int index, Class<V> type) {
        Objects.requireNonNull(type, "type");
        Objects.checkIndex(index, cells.length);
        SharedValue element = elements.get(index);
        if (!type.isInstance(element)) {
            throw new IllegalArgumentException("element " + index + " of " + desc + " is a " + element.descriptor()
                    + " (" + Desc.publicType(element.getClass()) + "), not a " + type.getSimpleName());
        }
        return type.cast(element);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        check(value);
    }

    @Override
    public void storeValue(Object value) {
        store((List<?>) value);
    }
}
