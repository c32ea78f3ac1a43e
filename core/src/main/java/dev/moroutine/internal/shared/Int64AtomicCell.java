package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int64Atomic;
import java.lang.foreign.MemorySegment;

/** The implementation of {@link Int64Atomic}. */
public final class Int64AtomicCell extends AbstractCell implements Int64Atomic {

    Int64AtomicCell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public long load() {
        return Memory.getLongVolatile(segment, offset);
    }

    @Override
    public void store(long value) {
        Memory.putLongVolatile(segment, offset, value);
    }

    @Override
    public long add(long delta) {
        return Memory.getAndAddLong(segment, offset, delta);
    }

    @Override
    public long sub(long delta) {
        return Memory.getAndAddLong(segment, offset, -delta);
    }

    @Override
    public long and(long mask) {
        return Memory.getAndBitwiseAndLong(segment, offset, mask);
    }

    @Override
    public long or(long mask) {
        return Memory.getAndBitwiseOrLong(segment, offset, mask);
    }

    @Override
    public long xor(long mask) {
        return Memory.getAndBitwiseXorLong(segment, offset, mask);
    }

    @Override
    public long exchange(long value) {
        return Memory.getAndSetLong(segment, offset, value);
    }

    @Override
    public long compareExchange(long expected, long replacement) {
        return Memory.compareAndExchangeLong(segment, offset, expected, replacement);
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
