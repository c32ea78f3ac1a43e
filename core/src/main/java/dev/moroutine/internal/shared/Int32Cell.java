package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int32;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Int32}. */
public final class Int32Cell extends AbstractCell implements Int32 {

    Int32Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public int load() {
        return Memory.getIntOpaque(segment, offset);
    }

    @Override
    public void store(int value) {
        Memory.putIntOpaque(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.integer(value, Integer.MIN_VALUE, Integer.MAX_VALUE, desc);
    }

    @Override
    public void storeValue(Object value) {
        store((int) ((Number) value).longValue());
    }
}
