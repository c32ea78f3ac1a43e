package dev.moroutine.internal.shared;

import dev.moroutine.shared.Uint8;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Uint8}. */
public final class Uint8Cell extends AbstractCell implements Uint8 {

    Uint8Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    /**
     * Refuses a value out of the uint8 range: here and in a struct's generated access
     * ({@link StructAccessors}), which calls {@link #put} after it.
     */
    static void check(int value, Object what) {
        Values.range(value, 0, 255, what);
    }

    static void put(MemorySegment segment, long offset, int value) {
        Memory.putByteOpaque(segment, offset, (byte) value);
    }

    @Override
    public int load() {
        return Byte.toUnsignedInt(Memory.getByteOpaque(segment, offset));
    }

    @Override
    public void store(int value) {
        check(value, desc);
        put(segment, offset, value);
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
