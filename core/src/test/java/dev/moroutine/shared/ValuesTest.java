package dev.moroutine.shared;

import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Scalars, bytes, strings, the shorthands, views, arenas and bad input. */
class ValuesTest {

    @Test
    void scalarsStartAtZeroAndRoundTrip() {
        Bool b = shared(bool);
        assertFalse(b.load());
        b.store(true);
        assertTrue(b.load());

        Int8 i8 = shared(int8);
        i8.store((byte) -128);
        assertEquals(-128, i8.load());
        Int16 i16 = shared(int16);
        i16.store((short) -32768);
        assertEquals(-32768, i16.load());
        Int32 i32 = shared(int32);
        assertEquals(0, i32.load());
        i32.store(Integer.MIN_VALUE);
        assertEquals(Integer.MIN_VALUE, i32.load());
        Int64 i64 = shared(int64);
        i64.store(Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, i64.load());
        Float32 f32 = shared(float32);
        f32.store(1.5f);
        assertEquals(1.5f, f32.load());
        Float64 f64 = shared(float64);
        f64.store(Math.PI);
        assertEquals(Math.PI, f64.load());
    }

    @Test
    void unsignedTypesUseTheirWholeRange() {
        Uint8 u8 = shared(uint8);
        u8.store(255);
        assertEquals(255, u8.load());
        Uint16 u16 = shared(uint16);
        u16.store(65535);
        assertEquals(65535, u16.load());
        Uint32 u32 = shared(uint32);
        u32.store(4_294_967_295L);
        assertEquals(4_294_967_295L, u32.load());
    }

    @Test
    void unsignedOutOfRangeIsRefusedAndLeavesTheValue() {
        Uint8 u8 = shared(uint8);
        u8.store(7);
        var e = assertThrows(IllegalArgumentException.class, () -> u8.store(256));
        assertEquals("uint8 holds 0..255, was 256", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> u8.store(-1));
        assertEquals(7, u8.load());
        assertThrows(IllegalArgumentException.class, () -> shared(uint16).store(65536));
        var e32 = assertThrows(IllegalArgumentException.class, () -> shared(uint32).store(-1L));
        assertEquals("uint32 holds 0..4294967295, was -1", e32.getMessage());
    }

    @Test
    void shorthands() {
        assertEquals(0, shared(0).load());
        assertEquals(42, shared(42).load());
        assertTrue(shared(true).load());
        assertEquals(0L, shared(0L).load());
        assertEquals(1L << 40, shared(1L << 40).load());
        assertEquals("int32", shared(0).descriptor().toString());
        assertEquals("int64", shared(0L).descriptor().toString());
        assertEquals("bool", shared(false).descriptor().toString());
    }

    @Test
    void bytesStoreExactLengthAndViewIsLive() {
        Bytes buf = shared(bytes(4));
        assertArrayEquals(new byte[4], buf.load());
        buf.store(new byte[] {1, 2, 3, 4});
        assertArrayEquals(new byte[] {1, 2, 3, 4}, buf.load());
        MemorySegment view = buf.view();
        assertEquals(4, view.byteSize());
        view.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 0xff);
        assertEquals((byte) 0xff, buf.load()[0]);
        assertThrows(IndexOutOfBoundsException.class, () -> view.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4));
    }

    @Test
    void bytesOfTheWrongLengthAreRefusedAndLeaveTheMemory() {
        Bytes buf = shared(bytes(32));
        byte[] before = new byte[32];
        Arrays.fill(before, (byte) 9);
        buf.store(before);
        var e = assertThrows(IllegalArgumentException.class, () -> buf.store(new byte[31]));
        assertEquals("bytes(32) stores exactly 32 bytes, was given 31", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> buf.store(new byte[33]));
        assertArrayEquals(before, buf.load());
        assertThrows(NullPointerException.class, () -> buf.store(null));
    }

    @Test
    void strings() {
        Str name = shared(string(64));
        assertEquals("", name.load());
        name.store("hello");
        assertEquals("hello", name.load());
        name.store("");
        assertEquals("", name.load());
        assertEquals(64, name.maxBytes());
    }

    @Test
    void aStringOverItsMaximumIsRefusedWithBothSizesAndLeavesTheMemory() {
        Str name = shared(string(8));
        name.store("kept");
        var e = assertThrows(IllegalArgumentException.class, () -> name.store("ninebytes"));
        assertEquals("string of 9 UTF-8 bytes is over the maximum of 8 bytes of string(8);"
                + " shorten it or declare a larger maximum", e.getMessage());
        assertEquals("kept", name.load());
    }

    @Test
    void anUnpairedSurrogateIsRefused() {
        Str s = shared(string(16));
        var e = assertThrows(IllegalArgumentException.class, () -> s.store("a\uD800b"));
        assertTrue(e.getMessage().contains("unpaired surrogate \\ud800 at index 1"), e.getMessage());
    }

    @Test
    void sizesBelowOneAreRefused() {
        var zero = assertThrows(IllegalArgumentException.class, () -> bytes(0));
        assertEquals("the size of bytes(n) must be at least 1 byte, was 0", zero.getMessage());
        var negative = assertThrows(IllegalArgumentException.class, () -> string(-3));
        assertEquals("the maximum size of string(n) must be at least 1 byte, was -3", negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> tuple());
    }

    @Test
    void negativeTimeoutsAreRefused() {
        Int32Atomic a = shared(int32Atomic);
        var e = assertThrows(IllegalArgumentException.class, () -> a.await(0, Duration.ofMillis(-1)));
        assertEquals("timeout must not be negative, was PT-0.001S; use Duration.ZERO to try without waiting", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.waitAsync(0, Duration.ofSeconds(-5)));
        assertThrows(IllegalArgumentException.class, () -> shared(mutex).lock(Duration.ofNanos(-1)));
        assertThrows(IllegalArgumentException.class, () -> shared(rwLock).readLock(Duration.ofNanos(-1)));
        assertThrows(IllegalArgumentException.class, () -> shared(rwLock).writeLock(Duration.ofNanos(-1)));
        assertThrows(NullPointerException.class, () -> a.await(0, null));
        assertThrows(IllegalArgumentException.class, () -> a.wake(-1));
    }

    @Test
    void aValueIsItsSegmentOffsetAndLayout() {
        Int32 a = shared(int32);
        Int32 b = view(int32, a.segment(), a.offset());
        b.store(77);
        assertEquals(77, a.load());
        assertEquals(4, a.layout().byteSize());
    }

    @Test
    void atomicsAndLocksStandaloneGetACacheLineOfTheirOwn() {
        for (SharedValue v : new SharedValue[] {shared(int32Atomic), shared(int64Atomic), shared(boolAtomic), shared(mutex), shared(rwLock)}) {
            assertEquals(0, v.segment().address() % 64, v + " is not cache-line aligned");
            assertEquals(64, v.segment().byteSize(), v.toString());
        }
    }

    @Test
    void viewsCheckBoundsAlignmentAndKindOfMemory() {
        MemorySegment segment = Arena.ofAuto().allocate(16, 8);
        var out = assertThrows(IndexOutOfBoundsException.class, () -> view(int64, segment, 12));
        assertEquals("int64 needs 8 bytes at offset 12, but the segment has 16 bytes", out.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> view(int32, segment, -4));
        var misaligned = assertThrows(IllegalArgumentException.class, () -> view(int32Atomic, segment, 2));
        assertTrue(misaligned.getMessage().startsWith("int32Atomic must sit at a multiple of 4 bytes"), misaligned.getMessage());
        var heap = assertThrows(IllegalArgumentException.class, () -> view(int32, MemorySegment.ofArray(new int[4]), 0));
        assertTrue(heap.getMessage().contains("is on the Java heap"), heap.getMessage());
        assertThrows(IllegalArgumentException.class, () -> view(int32, segment.asReadOnly(), 0));
        Int32 fits = view(int32, segment, 12);
        fits.store(5);
        assertEquals(5, segment.get(java.lang.foreign.ValueLayout.JAVA_INT, 12));
    }

    @Test
    void anExplicitArenaFreesTheMemoryWhenClosed() {
        Int32 kept;
        try (Arena arena = Arena.ofConfined()) {
            kept = shared(arena, int32);
            kept.store(3);
            assertEquals(3, kept.load());
        }
        assertThrows(IllegalStateException.class, kept::load);
    }
}
