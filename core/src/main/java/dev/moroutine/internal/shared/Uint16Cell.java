package dev.moroutine.internal.shared;

import dev.moroutine.shared.Uint16;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Uint16}. */
public final class Uint16Cell extends AbstractCell implements Uint16 {

    Uint16Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    /**
     * Refuses a value out of the uint16 range: here and in a struct's generated access
     * ({@link StructAccessors}), which calls {@link #put} after it.
     */
    static void check(int value, Object what) {
        Values.range(value, 0, 65535, what);
    }

    static void put(MemorySegment segment, long offset, int value) {
        Memory.putShortOpaque(segment, offset, (short) value);
    }

    @Override
    public int load() {
        return Short.toUnsignedInt(Memory.getShortOpaque(segment, offset));
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
        Values.integer(value, 0, 65535, desc);
    }

    @Override
    public void storeValue(Object value) {
        store((int) ((Number) value).longValue());
    }
}
