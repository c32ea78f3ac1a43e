package dev.moroutine.shared;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Structs from records, tuples, and every way of nesting them, here and on a worker. */
@Timeout(60)
class StructTupleTest {

    record Point(int x, int y) {}

    record Rect(Point pos, Point size) {}

    record Everything(boolean b, byte i8, short i16, int i32, long i64, float f32, double f64,
            @MaxBytes(16) String name, @MaxBytes(4) byte[] hash) {}

    record Holder(int id, List<Object> pair) {}

    record Inner(long big, boolean flag) {}

    record Guarded(Mutex lock, int x, int y) {}

    record Unsupported(int x, Instant when) {}

    record NoSize(String name) {}

    record Loop(int x, Loop next) {}

    /** Loads the struct on a worker, adds 1 to x there, and returns what it loaded. */
    static final Mo1<Struct<Point>, Point> bumpX = mo(p -> {
        Point before = p.load();
        p.field("x", Int32.class).store(before.x() + 1);
        return before;
    });

    /** Loads any tuple on a worker, then stores {@code replacement} into it there. */
    static final Mo2<Tuple, List<Object>, List<Object>> swapTuple = mo((tuple, replacement) -> {
        List<Object> before = tuple.load();
        tuple.store(replacement);
        return before;
    });

    /** Loads a struct of Holder on a worker, and stores one back there. */
    static final Mo2<Struct<Holder>, Holder, Holder> swapHolder = mo((struct, replacement) -> {
        Holder before = struct.load();
        struct.store(replacement);
        return before;
    });

    /** Rebuilds a tuple on the worker from (descriptor, segment, offset) alone, as a process backend would. */
    static final Mo1<List<Object>, List<Object>> rebuildAndLoad = mo(where -> {
        @SuppressWarnings("unchecked") // the test passes a tuple descriptor
        Descriptor<Tuple> descriptor = (Descriptor<Tuple>) where.get(0);
        return view(descriptor, (MemorySegment) where.get(1), (Long) where.get(2)).load();
    });

    @Test
    void aStructLoadsAndStoresARecordAndEachFieldIsAHandle() {
        Struct<Point> p = shared(struct(Point.class));
        assertEquals(new Point(0, 0), p.load());
        p.store(new Point(10, 20));
        assertEquals(new Point(10, 20), p.load());
        p.field("x", Int32.class).store(11);
        assertEquals(new Point(11, 20), p.load());
        assertEquals(List.of("x", "y"), List.copyOf(p.fields().keySet()));
        assertEquals(8, p.layout().byteSize());
        assertEquals(4, p.field("y", Int32.class).offset());
    }

    @Test
    void theValueShorthandMakesAStruct() {
        Struct<Point> p = shared(new Point(10, 20));
        assertEquals(new Point(10, 20), p.load());
        assertEquals(Point.class, p.type());
    }

    @Test
    void everySupportedComponentType() {
        Struct<Everything> s = shared(struct(Everything.class));
        Everything e = new Everything(true, (byte) -1, (short) 300, 70_000, 1L << 50, 2.5f, -0.125, "héllo", new byte[] {1, 2, 3, 4});
        s.store(e);
        Everything back = s.load();
        assertEquals(e.b(), back.b());
        assertEquals(e.i8(), back.i8());
        assertEquals(e.i16(), back.i16());
        assertEquals(e.i32(), back.i32());
        assertEquals(e.i64(), back.i64());
        assertEquals(e.f32(), back.f32());
        assertEquals(e.f64(), back.f64());
        assertEquals(e.name(), back.name());
        assertArrayEquals(e.hash(), back.hash());
        assertEquals(16, s.field("name", Str.class).maxBytes());
        assertEquals(4, s.field("hash", Bytes.class).size());
    }

    @Test
    void membersAreNaturallyAligned() {
        record Mixed(boolean a, int b, byte c, long d) {}
        Struct<Mixed> m = shared(struct(Mixed.class));
        assertEquals(0, m.field("a", Bool.class).offset());
        assertEquals(4, m.field("b", Int32.class).offset());
        assertEquals(8, m.field("c", Int8.class).offset());
        assertEquals(16, m.field("d", Int64.class).offset());
        assertEquals(24, m.layout().byteSize());
        assertEquals(8, m.layout().byteAlignment());
    }

    @Test
    void nestedRecordsNest() {
        Struct<Rect> r = shared(new Rect(new Point(1, 2), new Point(3, 4)));
        assertEquals(new Rect(new Point(1, 2), new Point(3, 4)), r.load());
        Struct<Point> size = r.structField("size", Point.class);
        size.field("y", Int32.class).store(40);
        assertEquals(new Point(3, 40), size.load());
        assertEquals(new Rect(new Point(1, 2), new Point(3, 40)), r.load());
        assertEquals(8, size.offset());
        var wrong = assertThrows(IllegalArgumentException.class, () -> r.field("size", Int32.class));
        assertEquals("Rect.size is a struct(Point) (Struct), not a Int32", wrong.getMessage());
        var inTuple = assertThrows(IllegalArgumentException.class,
                () -> shared(tuple(struct(Point.class), int32)).element(0, Int32.class));
        assertEquals("element 0 of tuple(struct(Point), int32) is a struct(Point) (Struct), not a Int32", inTuple.getMessage());
    }

    @Test
    void tuples() {
        Tuple pair = shared(tuple(int32, bool));
        assertEquals(List.of(0, false), pair.load());
        pair.store(List.of(42, true));
        assertEquals(List.of(42, true), pair.load());
        pair.element(0, Int32.class).store(99);
        assertEquals(List.of(99, true), pair.load());
        assertEquals(2, pair.elements().size());
        assertEquals("tuple(int32, bool)", pair.descriptor().toString());
    }

    @Test
    void tupleElementsOfEveryKind() {
        Tuple t = shared(tuple(int8, int16, int64, uint8, uint16, uint32, float32, float64, string(8), bytes(2), int32Atomic, boolAtomic));
        t.store(List.of(1, 2, 3, 255, 65535, 4_000_000_000L, 1.5f, 2.5, "ok", new byte[] {7, 8}, -5, true));
        List<Object> back = t.load();
        assertEquals(List.of((byte) 1, (short) 2, 3L, 255, 65535, 4_000_000_000L, 1.5f, 2.5, "ok"), back.subList(0, 9));
        assertArrayEquals(new byte[] {7, 8}, (byte[]) back.get(9));
        assertEquals(List.of(-5, true), back.subList(10, 12));
        assertEquals(-5, t.element(10, Int32Atomic.class).add(1));
    }

    @Test
    void aTupleRefusesBadValuesAndChangesNothing() {
        Tuple t = shared(tuple(int32, string(4), uint8));
        t.store(List.of(1, "abc", 2));
        var length = assertThrows(IllegalArgumentException.class, () -> t.store(List.of(1, "abc")));
        assertEquals("tuple(int32, string(4), uint8) has 3 elements, was given 2: [1, abc]", length.getMessage());
        var tooLong = assertThrows(IllegalArgumentException.class, () -> t.store(List.of(5, "abcdef", 3)));
        assertEquals("element 1 of tuple(int32, string(4), uint8): string of 6 UTF-8 bytes is over the maximum of 4 bytes"
                + " of string(4); shorten it or declare a larger maximum", tooLong.getMessage());
        var type = assertThrows(IllegalArgumentException.class, () -> t.store(List.of("x", "a", 3)));
        assertEquals("element 0 of tuple(int32, string(4), uint8): int32 holds an integer in -2147483648..2147483647,"
                + " was String x", type.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.store(List.of(5, "a", 256)));
        assertEquals(List.of(1, "abc", 2), t.load());
        var wrongHandle = assertThrows(IllegalArgumentException.class, () -> t.element(1, Int32.class));
        assertEquals("element 1 of tuple(int32, string(4), uint8) is a string(4) (Str), not a Int32", wrongHandle.getMessage());
    }

    @Test
    void aStructRefusesABadRecordAndChangesNothing() {
        Struct<Everything> s = shared(struct(Everything.class));
        Everything good = new Everything(true, (byte) 1, (short) 2, 3, 4, 5, 6, "ok", new byte[4]);
        s.store(good);
        var e = assertThrows(IllegalArgumentException.class,
                () -> s.store(new Everything(false, (byte) 9, (short) 9, 9, 9, 9, 9, "seventeen bytes!!", new byte[4])));
        assertEquals("Everything.name: string of 17 UTF-8 bytes is over the maximum of 16 bytes of string(16);"
                + " shorten it or declare a larger maximum", e.getMessage());
        var hash = assertThrows(IllegalArgumentException.class,
                () -> s.store(new Everything(false, (byte) 9, (short) 9, 9, 9, 9, 9, "x", new byte[5])));
        assertEquals("Everything.hash: bytes(4) stores exactly 4 bytes, was given 5", hash.getMessage());
        var nul = assertThrows(NullPointerException.class,
                () -> s.store(new Everything(false, (byte) 9, (short) 9, 9, 9, 9, 9, null, new byte[4])));
        assertEquals("Everything.name is null; a shared struct holds no nulls", nul.getMessage());
        assertEquals(good.i32(), s.load().i32());
        assertEquals("ok", s.load().name());
    }

    @Test
    void anUnsupportedComponentNamesItselfAndTheSupportedTypes() {
        var e = assertThrows(IllegalArgumentException.class, () -> shared(struct(Unsupported.class)));
        assertEquals("component Unsupported.when has type java.time.Instant, which a shared struct cannot hold;"
                + " supported: boolean, byte, short, int, long, float, double; String and byte[] with @MaxBytes(n);"
                + " records; Mutex; RwLock; and any of these or a List given a descriptor with"
                + " struct(…).with(component, descriptor)", e.getMessage());
        var noSize = assertThrows(IllegalArgumentException.class, () -> shared(struct(NoSize.class)));
        assertEquals("struct(NoSize) is incomplete: NoSize.name is a String and needs a size: annotate it @MaxBytes(n),"
                + " or give it one with struct(NoSize.class).with(\"name\", string(n))", noSize.getMessage());
        Struct<NoSize> sized = shared(struct(NoSize.class).with("name", string(2)));
        sized.store(new NoSize("ab"));
        assertEquals(new NoSize("ab"), sized.load());
        var loop = assertThrows(IllegalArgumentException.class, () -> struct(Loop.class));
        assertTrue(loop.getMessage().contains("contains itself"), loop.getMessage());
    }

    @Test
    void withChecksTheComponentAndTheDescriptorsType() {
        var missing = assertThrows(IllegalArgumentException.class, () -> struct(Point.class).with("z", int32));
        assertEquals("record Point has no component \"z\"; its components are [x, y]", missing.getMessage());
        var wrong = assertThrows(IllegalArgumentException.class, () -> struct(Point.class).with("x", int64));
        assertEquals("Point.x is a int, but int64 loads a long; fitting descriptors: int32, uint8, uint16, int32Atomic",
                wrong.getMessage());
    }

    @Test
    void aComponentCanBeAnAtomicOrUnsigned() {
        Struct<Point> p = shared(struct(Point.class).with("x", int32Atomic).with("y", uint16));
        Int32Atomic x = p.field("x", Int32Atomic.class);
        assertEquals(0, x.add(5));
        p.store(new Point(7, 65535));
        assertEquals(new Point(7, 65535), p.load());
        var e = assertThrows(IllegalArgumentException.class, () -> p.store(new Point(1, -1)));
        assertEquals("Point.y: uint16 holds 0..65535, was -1", e.getMessage());
        assertEquals(new Point(7, 65535), p.load());
    }

    @Test
    void aLockInAStructIsLiveAndNeverCopied() {
        Struct<Guarded> g = shared(struct(Guarded.class));
        Mutex mu = g.field("lock", Mutex.class);
        try (Guard held = mu.lock()) {
            Guarded now = g.load();
            assertSame(mu, now.lock());
            g.store(new Guarded(shared(mutex), 1, 2)); // another mutex: lock state is not copied
            assertTrue(mu.isLocked());
            assertNotNull(held);
        }
        assertEquals(1, g.load().x());
        assertFalse(mu.isLocked());
        g.store(new Guarded(null, 3, 4)); // the lock is not copied, so it may be left out
        assertEquals(3, g.load().x());
        assertSame(mu, g.load().lock());
    }

    @Test
    void structsInTuplesTuplesInStructsAndTuplesOfTuples() {
        Tuple structInTuple = shared(tuple(struct(Point.class), int32));
        structInTuple.store(List.of(new Point(1, 2), 3));
        assertEquals(List.of(new Point(1, 2), 3), structInTuple.load());

        Struct<Holder> tupleInStruct = shared(struct(Holder.class).with("pair", tuple(int32, bool)));
        tupleInStruct.store(new Holder(7, List.of(8, true)));
        assertEquals(new Holder(7, List.of(8, true)), tupleInStruct.load());
        tupleInStruct.field("pair", Tuple.class).element(0, Int32.class).store(9);
        assertEquals(List.of(9, true), tupleInStruct.load().pair());

        Tuple tupleOfTuples = shared(tuple(tuple(int32, bool), tuple(int64, tuple(int8, bool))));
        tupleOfTuples.store(List.of(List.of(1, true), List.of(2L, List.of(3, false))));
        assertEquals(List.of(List.of(1, true), List.of(2L, List.of((byte) 3, false))), tupleOfTuples.load());
    }

    @Test
    void aStructCrossesToAWorkerAsTheSameMemory() {
        Struct<Point> p = shared(new Point(10, 20));
        try (Pool pool = workers(2)) {
            assertEquals(new Point(10, 20), pool.run(bumpX.call(p)));
            assertEquals(new Point(11, 20), pool.run(bumpX.call(p)));
        }
        assertEquals(new Point(12, 20), p.load());
    }

    /** The seed lost nested tuples' elements on the way to a worker: each nesting, both ways. */
    @Test
    void structWithTupleOfPrimitivesCrossesToAWorker() {
        Struct<Holder> s = shared(struct(Holder.class).with("pair", tuple(int32, bool)));
        s.store(new Holder(1, List.of(2, true)));
        try (Pool pool = workers(2)) {
            Holder seen = pool.run(swapHolder.call(s, new Holder(3, List.of(4, false))));
            assertEquals(new Holder(1, List.of(2, true)), seen);
        }
        assertEquals(new Holder(3, List.of(4, false)), s.load());
    }

    @Test
    void structWithTupleOfStructsCrossesToAWorker() {
        Struct<Holder> s = shared(struct(Holder.class).with("pair", tuple(struct(Point.class), struct(Inner.class))));
        s.store(new Holder(1, List.of(new Point(2, 3), new Inner(4L, true))));
        try (Pool pool = workers(2)) {
            Holder seen = pool.run(swapHolder.call(s, new Holder(5, List.of(new Point(6, 7), new Inner(1L << 40, false)))));
            assertEquals(new Holder(1, List.of(new Point(2, 3), new Inner(4L, true))), seen);
        }
        assertEquals(new Holder(5, List.of(new Point(6, 7), new Inner(1L << 40, false))), s.load());
        Tuple pair = s.field("pair", Tuple.class);
        assertEquals(new Point(6, 7), pair.element(0, Struct.class).load());
    }

    @Test
    void tupleOfTuplesCrossesToAWorker() {
        Descriptor<Tuple> nested = tuple(tuple(int32, bool), tuple(string(8), tuple(int64, struct(Point.class))));
        Tuple t = shared(nested);
        List<Object> first = List.of(List.of(1, true), List.of("one", List.of(1L, new Point(1, 1))));
        List<Object> second = List.of(List.of(2, false), List.of("two", List.of(2L, new Point(2, 2))));
        t.store(first);
        try (Pool pool = workers(2)) {
            assertEquals(first, pool.run(swapTuple.call(t, second)));
            assertEquals(second, pool.run(rebuildAndLoad.call(List.of(nested, t.segment(), t.offset()))));
        }
        assertEquals(second, t.load());
        List<SharedValue> inner = t.element(1, Tuple.class).elements();
        assertEquals("two", ((Str) inner.get(0)).load());
        assertEquals(List.of(2L, new Point(2, 2)), ((Tuple) inner.get(1)).load());
    }

    @Test
    void aViewOfAStructInsideATupleIsTheSameMemory() {
        Tuple t = shared(tuple(int64, struct(Point.class)));
        Struct<?> inside = t.element(1, Struct.class);
        Struct<Point> again = view(struct(Point.class), inside.segment(), inside.offset());
        again.store(new Point(5, 6));
        assertEquals(List.of(0L, new Point(5, 6)), t.load());
    }
}
