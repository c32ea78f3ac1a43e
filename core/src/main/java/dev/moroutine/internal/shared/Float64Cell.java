package dev.moroutine.internal.shared;

import dev.moroutine.shared.Float64;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Float64}. */
public final class Float64Cell extends AbstractCell implements Float64 {

    Float64Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public double load() {
        return Memory.getDoubleOpaque(segment, offset);
    }

    @Override
    public void store(double value) {
        Memory.putDoubleOpaque(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.instance(value, Number.class, desc);
        if (!(value instanceof Double || value instanceof Float)) {
            throw new IllegalArgumentException(desc + " holds a Double or a Float, was " + Values.describe(value));
        }
    }

    @Override
    public void storeValue(Object value) {
        store(((Number) value).doubleValue());
    }
}
