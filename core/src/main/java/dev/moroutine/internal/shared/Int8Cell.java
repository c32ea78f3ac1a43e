package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int8;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Int8}. */
public final class Int8Cell extends AbstractCell implements Int8 {

    Int8Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public byte load() {
        return Memory.getByteOpaque(segment, offset);
    }

    @Override
    public void store(byte value) {
        Memory.putByteOpaque(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.integer(value, Byte.MIN_VALUE, Byte.MAX_VALUE, desc);
    }

    @Override
    public void storeValue(Object value) {
        store((byte) ((Number) value).longValue());
    }
}
