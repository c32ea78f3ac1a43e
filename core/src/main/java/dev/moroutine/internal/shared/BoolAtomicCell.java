package dev.moroutine.internal.shared;

import dev.moroutine.shared.BoolAtomic;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link BoolAtomic}: an int32 word holding 0 or 1. */
public final class BoolAtomicCell extends AbstractCell implements BoolAtomic {

    BoolAtomicCell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    private static int bit(boolean value) {
        return value ? 1 : 0;
    }

    /** The value of a boolAtomic's word: here and in a struct's generated access ({@link StructAccessors}), which reads the word itself. */
    static boolean bool(int word) {
        return word != 0;
    }

    /** Writes a boolAtomic at {@code (segment, offset)}: here and in a struct's generated access. */
    static void put(MemorySegment segment, long offset, boolean value) {
        Memory.putIntVolatile(segment, offset, bit(value));
    }

    @Override
    public boolean load() {
        return bool(Memory.getIntVolatile(segment, offset));
    }

    @Override
    public void store(boolean value) {
        put(segment, offset, value);
    }

    @Override
    public boolean and(boolean mask) {
        return Memory.getAndBitwiseAndInt(segment, offset, bit(mask)) != 0;
    }

    @Override
    public boolean or(boolean mask) {
        return Memory.getAndBitwiseOrInt(segment, offset, bit(mask)) != 0;
    }

    @Override
    public boolean xor(boolean mask) {
        return Memory.getAndBitwiseXorInt(segment, offset, bit(mask)) != 0;
    }

    @Override
    public boolean exchange(boolean value) {
        return Memory.getAndSetInt(segment, offset, bit(value)) != 0;
    }

    @Override
    public boolean compareExchange(boolean expected, boolean replacement) {
        return Memory.compareAndExchangeInt(segment, offset, bit(expected), bit(replacement)) != 0;
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
