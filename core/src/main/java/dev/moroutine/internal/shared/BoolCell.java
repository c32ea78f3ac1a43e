package dev.moroutine.internal.shared;

import dev.moroutine.shared.Bool;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Bool}. */
public final class BoolCell extends AbstractCell implements Bool {

    BoolCell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    /** Writes a bool at {@code (segment, offset)}: here and in a struct's generated access ({@link StructAccessors}). */
    static void put(MemorySegment segment, long offset, boolean value) {
        Memory.putByteOpaque(segment, offset, (byte) (value ? 1 : 0));
    }

    @Override
    public boolean load() {
        return Memory.getByteOpaque(segment, offset) != 0;
    }

    @Override
    public void store(boolean value) {
        put(segment, offset, value);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        Values.instance(value, Boolean.class, desc);
    }

    @Override
    public void storeValue(Object value) {
        store((Boolean) value);
    }
}
