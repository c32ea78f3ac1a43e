package dev.moroutine.internal.shared;

import dev.moroutine.shared.Uint8;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Uint8}. */
public final class Uint8Cell extends AbstractCell implements Uint8 {

    Uint8Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public int load() {
        return Byte.toUnsignedInt(Memory.getByteOpaque(segment, offset));
    }

    @Override
    public void store(int value) {
        Values.range(value, 0, 255, desc);
        Memory.putByteOpaque(segment, offset, (byte) value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.integer(value, 0, 255, desc);
    }

    @Override
    public void storeValue(Object value) {
        store((int) ((Number) value).longValue());
    }
}
