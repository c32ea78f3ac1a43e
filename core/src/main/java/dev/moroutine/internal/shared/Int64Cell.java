package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int64;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Int64}. */
public final class Int64Cell extends AbstractCell implements Int64 {

    Int64Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public long load() {
        return Memory.getLongOpaque(segment, offset);
    }

    @Override
    public void store(long value) {
        Memory.putLongOpaque(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.integer(value, Long.MIN_VALUE, Long.MAX_VALUE, desc);
    }

    @Override
    public void storeValue(Object value) {
        store(((Number) value).longValue());
    }
}
