package dev.moroutine.internal.shared;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * Reads and writes of shared memory, one method per access mode, named after it (as in Agrona's
 * {@code AtomicBuffer}): {@code …Opaque} (a single untorn access that orders nothing),
 * {@code …Acquire}/{@code …Release}, {@code …Volatile} (sequentially consistent), and the atomic
 * read-modify-writes, which are all volatile. Every address is {@code (segment, offset)}; the
 * offset must be aligned for the type, which the layouts in {@link Layouts} guarantee.
 */
final class Memory {

    private static final VarHandle BOOLEAN = Layouts.BOOL.varHandle();
    private static final VarHandle BYTE = Layouts.INT8.varHandle();
    private static final VarHandle SHORT = Layouts.INT16.varHandle();
    private static final VarHandle INT = Layouts.INT32.varHandle();
    private static final VarHandle LONG = Layouts.INT64.varHandle();
    private static final VarHandle FLOAT = Layouts.FLOAT32.varHandle();
    private static final VarHandle DOUBLE = Layouts.FLOAT64.varHandle();

    private Memory() {}

    static boolean getBooleanOpaque(MemorySegment s, long o) {
        return (boolean) BOOLEAN.getOpaque(s, o);
    }

    static void putBooleanOpaque(MemorySegment s, long o, boolean v) {
        BOOLEAN.setOpaque(s, o, v);
    }

    static byte getByteOpaque(MemorySegment s, long o) {
        return (byte) BYTE.getOpaque(s, o);
    }

    static void putByteOpaque(MemorySegment s, long o, byte v) {
        BYTE.setOpaque(s, o, v);
    }

    static short getShortOpaque(MemorySegment s, long o) {
        return (short) SHORT.getOpaque(s, o);
    }

    static void putShortOpaque(MemorySegment s, long o, short v) {
        SHORT.setOpaque(s, o, v);
    }

    static int getIntOpaque(MemorySegment s, long o) {
        return (int) INT.getOpaque(s, o);
    }

    static void putIntOpaque(MemorySegment s, long o, int v) {
        INT.setOpaque(s, o, v);
    }

    static int getIntAcquire(MemorySegment s, long o) {
        return (int) INT.getAcquire(s, o);
    }

    static void putIntRelease(MemorySegment s, long o, int v) {
        INT.setRelease(s, o, v);
    }

    static int getIntVolatile(MemorySegment s, long o) {
        return (int) INT.getVolatile(s, o);
    }

    static void putIntVolatile(MemorySegment s, long o, int v) {
        INT.setVolatile(s, o, v);
    }

    static boolean compareAndSetInt(MemorySegment s, long o, int expected, int v) {
        return INT.compareAndSet(s, o, expected, v);
    }

    static int compareAndExchangeInt(MemorySegment s, long o, int expected, int v) {
        return (int) INT.compareAndExchange(s, o, expected, v);
    }

    static int getAndSetInt(MemorySegment s, long o, int v) {
        return (int) INT.getAndSet(s, o, v);
    }

    static int getAndAddInt(MemorySegment s, long o, int delta) {
        return (int) INT.getAndAdd(s, o, delta);
    }

    static int getAndBitwiseAndInt(MemorySegment s, long o, int v) {
        return (int) INT.getAndBitwiseAnd(s, o, v);
    }

    static int getAndBitwiseOrInt(MemorySegment s, long o, int v) {
        return (int) INT.getAndBitwiseOr(s, o, v);
    }

    static int getAndBitwiseXorInt(MemorySegment s, long o, int v) {
        return (int) INT.getAndBitwiseXor(s, o, v);
    }

    static long getLongOpaque(MemorySegment s, long o) {
        return (long) LONG.getOpaque(s, o);
    }

    static void putLongOpaque(MemorySegment s, long o, long v) {
        LONG.setOpaque(s, o, v);
    }

    static long getLongVolatile(MemorySegment s, long o) {
        return (long) LONG.getVolatile(s, o);
    }

    static void putLongVolatile(MemorySegment s, long o, long v) {
        LONG.setVolatile(s, o, v);
    }

    static long compareAndExchangeLong(MemorySegment s, long o, long expected, long v) {
        return (long) LONG.compareAndExchange(s, o, expected, v);
    }

    static long getAndSetLong(MemorySegment s, long o, long v) {
        return (long) LONG.getAndSet(s, o, v);
    }

    static long getAndAddLong(MemorySegment s, long o, long delta) {
        return (long) LONG.getAndAdd(s, o, delta);
    }

    static long getAndBitwiseAndLong(MemorySegment s, long o, long v) {
        return (long) LONG.getAndBitwiseAnd(s, o, v);
    }

    static long getAndBitwiseOrLong(MemorySegment s, long o, long v) {
        return (long) LONG.getAndBitwiseOr(s, o, v);
    }

    static long getAndBitwiseXorLong(MemorySegment s, long o, long v) {
        return (long) LONG.getAndBitwiseXor(s, o, v);
    }

    static float getFloatOpaque(MemorySegment s, long o) {
        return (float) FLOAT.getOpaque(s, o);
    }

    static void putFloatOpaque(MemorySegment s, long o, float v) {
        FLOAT.setOpaque(s, o, v);
    }

    static double getDoubleOpaque(MemorySegment s, long o) {
        return (double) DOUBLE.getOpaque(s, o);
    }

    static void putDoubleOpaque(MemorySegment s, long o, double v) {
        DOUBLE.setOpaque(s, o, v);
    }
}
