package dev.moroutine.shared;

import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A struct's generated load against its fields' own cells, on memory filled with seeded random
 * bytes (so a bool byte of 2, a uint8 of 0xFF and NaN payloads come up), in layouts with padding
 * and nesting, cold and after enough loads for the JIT to compile the generated class; and a load
 * of freed memory, which fails as a field's load does.
 */
@Timeout(120)
class StructLoadPropertyTest {

    /** Every scalar kind, in an order that pads after nearly every field. */
    record Padded(boolean b, long i64, byte i8, int u16, short i16, double f64, int u8, float f32, long u32, boolean ab,
            int a32, long a64, int i32) {}

    record Inner(boolean z, long l, int i) {}

    record Outer(byte a, Inner inner, short s) {}

    private static final StructDescriptor<Padded> PADDED = struct(Padded.class).with("u16", uint16).with("u8", uint8)
            .with("u32", uint32).with("ab", boolAtomic).with("a32", int32Atomic).with("a64", int64Atomic);

    private static final int ROUNDS = 30_000;

    /** The record the fields' own cells read, component by component. */
    private static Padded byCells(Struct<Padded> s) {
        return new Padded(s.field("b", Bool.class).load(), s.field("i64", Int64.class).load(), s.field("i8", Int8.class).load(),
                s.field("u16", Uint16.class).load(), s.field("i16", Int16.class).load(), s.field("f64", Float64.class).load(),
                s.field("u8", Uint8.class).load(), s.field("f32", Float32.class).load(), s.field("u32", Uint32.class).load(),
                s.field("ab", BoolAtomic.class).load(), s.field("a32", Int32Atomic.class).load(),
                s.field("a64", Int64Atomic.class).load(), s.field("i32", Int32.class).load());
    }

    private static Outer byCells(Struct<Outer> s, Struct<Inner> inner) {
        return new Outer(s.field("a", Int8.class).load(), new Inner(inner.field("z", Bool.class).load(),
                inner.field("l", Int64.class).load(), inner.field("i", Int32.class).load()), s.field("s", Int16.class).load());
    }

    private static void fill(MemorySegment segment, long offset, long size, Random random) {
        for (long i = 0; i < size; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) random.nextInt(256));
        }
    }

    /** Compares component by component, booleans by {@code ==} (a boolean that holds 2 is not {@code true}) and floats by bits. */
    private static void assertSame(Padded expected, Padded loaded, String where) {
        assertTrue(loaded.b() == expected.b() && (loaded.b() ? 1 : 0) == (expected.b() ? 1 : 0), where + " b");
        assertTrue(loaded.ab() == expected.ab(), where + " ab");
        assertEquals(Float.floatToRawIntBits(expected.f32()), Float.floatToRawIntBits(loaded.f32()), where + " f32");
        assertEquals(Double.doubleToRawLongBits(expected.f64()), Double.doubleToRawLongBits(loaded.f64()), where + " f64");
        assertEquals(expected, loaded, where);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 42, 0xC0FFEE, 20261201})
    void everyScalarKindLoadsWhatItsOwnCellLoadsOnRandomBytes(long seed) {
        Random random = new Random(seed);
        Struct<Padded> s = shared(PADDED);
        long size = s.layout().byteSize();
        for (int round = 0; round < ROUNDS; round++) {
            fill(s.segment(), s.offset(), size, random);
            if (round % 7 == 0) { // small bool bytes too: 0, 1, 2
                s.segment().set(ValueLayout.JAVA_BYTE, s.offset(), (byte) random.nextInt(3));
            }
            assertSame(byCells(s), s.load(), "seed " + seed + " round " + round);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {7, 99})
    void aNestedStructLoadsWhatItsCellsLoadOnRandomBytes(long seed) {
        Random random = new Random(seed);
        Struct<Outer> s = shared(struct(Outer.class));
        Struct<Inner> inner = s.structField("inner", Inner.class);
        for (int round = 0; round < ROUNDS; round++) {
            fill(s.segment(), s.offset(), s.layout().byteSize(), random);
            Outer expected = byCells(s, inner);
            Outer loaded = s.load();
            assertEquals(expected, loaded, "seed " + seed + " round " + round);
            assertTrue(loaded.inner().z() == expected.inner().z(), "seed " + seed + " round " + round + " z");
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {3, 11})
    void aStructInATupleAndInAViewAtAnOffsetLoadsWhatItsCellsLoad(long seed) {
        Random random = new Random(seed);
        Tuple tuple = shared(tuple(int8, PADDED, int16));
        @SuppressWarnings("unchecked")
        Struct<Padded> element = tuple.element(1, Struct.class);
        Arena arena = Arena.ofAuto();
        MemorySegment big = arena.allocate(4096, 4096);
        Struct<Padded> viewed = view(PADDED, big, 64 * 8 + 8);
        for (int round = 0; round < ROUNDS / 3; round++) {
            fill(tuple.segment(), tuple.offset(), tuple.layout().byteSize(), random);
            fill(big, 0, big.byteSize(), random);
            assertSame(byCells(element), element.load(), "tuple element, seed " + seed + " round " + round);
            assertSame(byCells(viewed), viewed.load(), "view, seed " + seed + " round " + round);
        }
    }

    @Test
    void aLoadOfFreedMemoryFailsAsAFieldsLoadDoes() {
        Struct<Padded> s;
        try (Arena arena = Arena.ofConfined()) {
            s = shared(arena, PADDED);
            s.store(new Padded(true, 1, (byte) 2, 3, (short) 4, 5, 6, 7, 8, true, 9, 10, 11));
            for (int i = 0; i < ROUNDS; i++) { // compiled, with its one check per load
                assertEquals(11, s.load().i32());
            }
        }
        Struct<Padded> freed = s;
        var field = assertThrows(IllegalStateException.class, () -> freed.field("i32", Int32.class).load());
        var load = assertThrows(IllegalStateException.class, freed::load);
        assertEquals(field.getMessage(), load.getMessage());
    }

    @Test
    void aLoadOfMemoryFreedByAnotherThreadFailsAsAFieldsLoadDoes() throws Exception {
        Arena arena = Arena.ofShared();
        Struct<Padded> s = shared(arena, PADDED);
        for (int i = 0; i < ROUNDS; i++) {
            assertEquals(0, s.load().i32());
        }
        Thread closer = Thread.ofPlatform().start(arena::close);
        closer.join();
        var field = assertThrows(IllegalStateException.class, () -> s.field("i8", Int8.class).load());
        var load = assertThrows(IllegalStateException.class, s::load);
        assertEquals(field.getMessage(), load.getMessage());
        Function<Struct<Padded>, Padded> again = Struct::load;
        assertThrows(IllegalStateException.class, () -> again.apply(s));
    }
}
