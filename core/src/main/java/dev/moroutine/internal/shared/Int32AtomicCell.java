package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.WaitResult;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The implementation of {@link Int32Atomic}; waiting goes through {@link Futex}. */
public final class Int32AtomicCell extends AbstractCell implements Int32Atomic {

    Int32AtomicCell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    @Override
    public int load() {
        return Memory.getIntVolatile(segment, offset);
    }

    @Override
    public void store(int value) {
        Memory.putIntVolatile(segment, offset, value);
    }

    @Override
    public int add(int delta) {
        return Memory.getAndAddInt(segment, offset, delta);
    }

    @Override
    public int sub(int delta) {
        return Memory.getAndAddInt(segment, offset, -delta);
    }

    @Override
    public int and(int mask) {
        return Memory.getAndBitwiseAndInt(segment, offset, mask);
    }

    @Override
    public int or(int mask) {
        return Memory.getAndBitwiseOrInt(segment, offset, mask);
    }

    @Override
    public int xor(int mask) {
        return Memory.getAndBitwiseXorInt(segment, offset, mask);
    }

    @Override
    public int exchange(int value) {
        return Memory.getAndSetInt(segment, offset, value);
    }

    @Override
    public int compareExchange(int expected, int replacement) {
        return Memory.compareAndExchangeInt(segment, offset, expected, replacement);
    }

    @Override
    public WaitResult await(int expected) throws InterruptedException {
        return Futex.await(segment, offset, expected, -1, true);
    }

    @Override
    public WaitResult await(int expected, Duration timeout) throws InterruptedException {
        return Futex.await(segment, offset, expected, Values.timeoutNanos(timeout), true);
    }

    @Override
    public CompletableFuture<WaitResult> waitAsync(int expected) {
        return Futex.awaitAsync(segment, offset, expected, -1);
    }

    @Override
    public CompletableFuture<WaitResult> waitAsync(int expected, Duration timeout) {
        return Futex.awaitAsync(segment, offset, expected, Values.timeoutNanos(timeout));
    }

    @Override
    public int wake() {
        return Futex.wake(segment, offset, Integer.MAX_VALUE);
    }

    @Override
    public int wake(int count) {
        return Futex.wake(segment, offset, requireCount(count));
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
