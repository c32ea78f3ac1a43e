package dev.moroutine.shared;

import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The class generated per struct descriptor that loads and stores whole records: every kind of
 * field it handles (each scalar descriptor, strings, nested structs, locks, tuples), against the
 * fields' own handles, and the checks and messages of a refused store.
 */
@Timeout(60)
class StructAccessTest {

    record Scalars(boolean b, byte i8, short i16, int i32, long i64, int u8, int u16, long u32, float f32, double f64,
            int a32, long a64, boolean ab) {}

    record Named(@MaxBytes(4) String name, int n) {}

    record Pair(Named left, Named right) {}

    record Inner(Mutex lock, int x) {}

    record Outer(long before, Inner inner, @MaxBytes(3) byte[] tag) {}

    record Point(int x, int y) {}

    private static final StructDescriptor<Scalars> SCALARS = struct(Scalars.class)
            .with("u8", uint8).with("u16", uint16).with("u32", uint32)
            .with("a32", int32Atomic).with("a64", int64Atomic).with("ab", boolAtomic);

    @Test
    void everyScalarDescriptorLoadsAndStoresWhatItsOwnHandleSees() {
        Struct<Scalars> s = shared(SCALARS);
        Scalars extremes = new Scalars(true, Byte.MIN_VALUE, Short.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE, 255, 65535,
                0xFFFF_FFFFL, Float.NaN, -0.0, Integer.MAX_VALUE, Long.MAX_VALUE, true);
        s.store(extremes);
        assertEquals(extremes, s.load());
        assertTrue(s.field("b", Bool.class).load());
        assertEquals(Byte.MIN_VALUE, s.field("i8", Int8.class).load());
        assertEquals(Short.MIN_VALUE, s.field("i16", Int16.class).load());
        assertEquals(Integer.MIN_VALUE, s.field("i32", Int32.class).load());
        assertEquals(Long.MIN_VALUE, s.field("i64", Int64.class).load());
        assertEquals(255, s.field("u8", Uint8.class).load());
        assertEquals(65535, s.field("u16", Uint16.class).load());
        assertEquals(0xFFFF_FFFFL, s.field("u32", Uint32.class).load());
        assertTrue(Float.isNaN(s.field("f32", Float32.class).load()));
        assertEquals(-0.0, s.field("f64", Float64.class).load());
        assertEquals(Integer.MAX_VALUE, s.field("a32", Int32Atomic.class).load());
        assertEquals(Long.MAX_VALUE, s.field("a64", Int64Atomic.class).load());
        assertTrue(s.field("ab", BoolAtomic.class).load());

        s.field("u8", Uint8.class).store(128);
        s.field("u32", Uint32.class).store(1L << 31);
        s.field("ab", BoolAtomic.class).store(false);
        s.field("i64", Int64.class).store(42);
        Scalars back = s.load();
        assertEquals(128, back.u8());
        assertEquals(1L << 31, back.u32());
        assertFalse(back.ab());
        assertEquals(42, back.i64());
    }

    @Test
    void anUnsignedComponentOutOfRangeIsRefusedBeforeAnythingIsWritten() {
        Struct<Scalars> s = shared(SCALARS);
        Scalars good = new Scalars(true, (byte) 1, (short) 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, true);
        s.store(good);
        var u8 = assertThrows(IllegalArgumentException.class,
                () -> s.store(new Scalars(false, (byte) 9, (short) 9, 9, 9, 256, 9, 9, 9, 9, 9, 9, false)));
        assertEquals("Scalars.u8: uint8 holds 0..255, was 256", u8.getMessage());
        var u32 = assertThrows(IllegalArgumentException.class,
                () -> s.store(new Scalars(false, (byte) 9, (short) 9, 9, 9, 9, 9, -1, 9, 9, 9, 9, false)));
        assertEquals("Scalars.u32: uint32 holds 0..4294967295, was -1", u32.getMessage());
        assertEquals(good, s.load());
    }

    @Test
    void aNestedStructsRefusalNamesBothComponentsAndChangesNothing() {
        Struct<Pair> p = shared(new Pair(new Named("ab", 1), new Named("cd", 2)));
        var tooLong = assertThrows(IllegalArgumentException.class,
                () -> p.store(new Pair(new Named("ok", 3), new Named("seven!!", 4))));
        assertEquals("Pair.right: Named.name: string of 7 UTF-8 bytes is over the maximum of 4 bytes of string(4);"
                + " shorten it or declare a larger maximum", tooLong.getMessage());
        var nullStruct = assertThrows(NullPointerException.class, () -> p.store(new Pair(null, new Named("x", 5))));
        assertEquals("Pair.left is null; a shared struct holds no nulls", nullStruct.getMessage());
        var nullInside = assertThrows(NullPointerException.class,
                () -> p.store(new Pair(new Named("x", 5), new Named(null, 6))));
        assertEquals("Named.name is null; a shared struct holds no nulls", nullInside.getMessage());
        assertEquals(new Pair(new Named("ab", 1), new Named("cd", 2)), p.load());
        p.store(new Pair(new Named("wxyz", 7), new Named("", 8)));
        assertEquals(new Pair(new Named("wxyz", 7), new Named("", 8)), p.load());
    }

    @Test
    void aLockInANestedStructIsLiveAndBytesAreChecked() {
        Struct<Outer> o = shared(struct(Outer.class));
        Mutex lock = o.structField("inner", Inner.class).field("lock", Mutex.class);
        o.store(new Outer(-1, new Inner(null, 2), new byte[] {1, 2, 3}));
        Outer back = o.load();
        assertSame(lock, back.inner().lock());
        assertEquals(-1, back.before());
        assertEquals(2, back.inner().x());
        assertArrayEquals(new byte[] {1, 2, 3}, back.tag());
        var wrongSize = assertThrows(IllegalArgumentException.class, () -> o.store(new Outer(5, new Inner(null, 6), new byte[2])));
        assertEquals("Outer.tag: bytes(3) stores exactly 3 bytes, was given 2", wrongSize.getMessage());
        assertEquals(-1, o.load().before());
    }

    @Test
    void aStructInATupleIsCheckedByItsOwnAccess() {
        Tuple t = shared(tuple(struct(Named.class), int32));
        t.store(List.of(new Named("abc", 1), 2));
        var tooLong = assertThrows(IllegalArgumentException.class, () -> t.store(List.of(new Named("abcde", 1), 3)));
        assertEquals("element 0 of tuple(struct(Named), int32): Named.name: string of 5 UTF-8 bytes is over the maximum"
                + " of 4 bytes of string(4); shorten it or declare a larger maximum", tooLong.getMessage());
        var wrongType = assertThrows(IllegalArgumentException.class, () -> t.store(List.of("abc", 3)));
        assertEquals("element 0 of tuple(struct(Named), int32): struct(Named) holds a Named, was String abc",
                wrongType.getMessage());
        assertEquals(List.of(new Named("abc", 1), 2), t.load());
    }

    /** A descriptor generates its access at its first cell; threads that make the first cells together all get a working one. */
    @Test
    void threadsThatMakeTheFirstCellsOfADescriptorTogetherAllLoadAndStore() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 20; round++) {
                StructDescriptor<Point> fresh = struct(Point.class).with("x", int32); // a new descriptor, not yet generated
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Point>> loads = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    loads.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        Struct<Point> p = shared(fresh);
                        p.store(new Point(id, -id));
                        return p.load();
                    }));
                }
                for (int t = 0; t < threads; t++) {
                    assertEquals(new Point(t, -t), loads.get(t).get(10, TimeUnit.SECONDS));
                }
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }
}
