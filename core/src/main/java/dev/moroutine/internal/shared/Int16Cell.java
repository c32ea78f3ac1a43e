package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int16;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Int16}. */
public final class Int16Cell extends AbstractCell implements Int16 {

    Int16Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public short load() {
        return Memory.getShortOpaque(segment, offset);
    }

    @Override
    public void store(short value) {
        Memory.putShortOpaque(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.integer(value, Short.MIN_VALUE, Short.MAX_VALUE, desc);
    }

    @Override
    public void storeValue(Object value) {
        store((short) ((Number) value).longValue());
    }
}
