package dev.moroutine.internal.shared;

import dev.moroutine.shared.Float32;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Float32}. */
public final class Float32Cell extends AbstractCell implements Float32 {

    Float32Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public float load() {
        return Memory.getFloatOpaque(segment, offset);
    }

    @Override
    public void store(float value) {
        Memory.putFloatOpaque(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.instance(value, Float.class, desc);
    }

    @Override
    public void storeValue(Object value) {
        store((Float) value);
    }
}
