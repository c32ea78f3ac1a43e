package dev.moroutine.internal.shared;

import dev.moroutine.shared.Uint32;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Uint32}. */
public final class Uint32Cell extends AbstractCell implements Uint32 {

    Uint32Cell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    /**
     * Refuses a value out of the uint32 range: here and in a struct's generated access
     * ({@link StructAccessors}), which calls {@link #put} after it.
     */
    static void check(long value, Object what) {
        Values.range(value, 0, 0xFFFF_FFFFL, what);
    }

    static void put(MemorySegment segment, long offset, long value) {
        Memory.putIntOpaque(segment, offset, (int) value);
    }

    @Override
    public long load() {
        return Integer.toUnsignedLong(Memory.getIntOpaque(segment, offset));
    }

    @Override
    public void store(long value) {
        check(value, desc);
        put(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.integer(value, 0, 0xFFFF_FFFFL, desc);
    }

    @Override
    public void storeValue(Object value) {
        store(((Number) value).longValue());
    }
}
