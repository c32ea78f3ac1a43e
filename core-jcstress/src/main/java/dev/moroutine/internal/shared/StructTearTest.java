package dev.moroutine.internal.shared;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.shared.Shared;
import dev.moroutine.shared.Struct;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Every field of a struct load is untorn while a store races it: each field loads as all of the
 * old value or all of the new. The result counts the fields that were neither.
 */
@JCStressTest
@Description("Struct: a load racing a store sees every field whole (old or new)")
@Outcome(id = "0", expect = ACCEPTABLE, desc = "every field whole")
@Outcome(expect = FORBIDDEN, desc = "a field mixed bytes of the old and the new value")
@State
public class StructTearTest {

    /** Fields of every width, with padding between them. */
    public record Mixed(byte b, int i, short s, long l, float f, boolean z, double d) {}

    private static final Mixed ZERO = new Mixed((byte) 0, 0, (short) 0, 0, 0f, false, 0.0);
    private static final Mixed ONES = new Mixed((byte) -1, -1, (short) -1, -1, Float.intBitsToFloat(0x7f80_0001 | 0x3f_ffff),
            true, Double.longBitsToDouble(0x7ff8_ffff_ffff_ffffL));

    private final Struct<Mixed> mixed = Shared.shared(ZERO);

    @Actor
    public void writer() {
        mixed.store(ONES);
    }

    @Actor
    public void reader(I_Result r) {
        Mixed m = mixed.load();
        int torn = 0;
        torn += m.b() == 0 || m.b() == -1 ? 0 : 1;
        torn += m.i() == 0 || m.i() == -1 ? 0 : 1;
        torn += m.s() == 0 || m.s() == -1 ? 0 : 1;
        torn += m.l() == 0 || m.l() == -1 ? 0 : 1;
        int f = Float.floatToRawIntBits(m.f());
        torn += f == 0 || f == Float.floatToRawIntBits(ONES.f()) ? 0 : 1;
        long d = Double.doubleToRawLongBits(m.d());
        torn += d == 0 || d == Double.doubleToRawLongBits(ONES.d()) ? 0 : 1;
        r.r1 = torn;
    }
}
