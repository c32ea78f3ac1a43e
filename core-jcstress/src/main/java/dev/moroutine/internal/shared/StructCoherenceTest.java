package dev.moroutine.internal.shared;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.shared.Int32;
import dev.moroutine.shared.Shared;
import dev.moroutine.shared.Struct;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Read-read coherence of one struct field, which opaque mode promises (and the package's table
 * names opaque for every field of a struct): once a reader has seen the store, a later read of the
 * same field by that reader does not see the value from before it. The reads are a struct load,
 * then the field's own cell (opaque); and two struct loads.
 */
public final class StructCoherenceTest {

    private StructCoherenceTest() {}

    /** The record: an int32 read plain by the generated load, and a short beside it. */
    public record Pair(int x, short y) {}

    /** A struct load, then the same field through its cell. */
    @JCStressTest
    @Description("Struct: load().x() then field(x).load(): the second read is not older than the first")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "coherent")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the later read saw an older value than the earlier")
    @State
    public static class LoadThenCell {
        private final Struct<Pair> pair = Shared.shared(new Pair(0, (short) 0));
        private final Int32 x = pair.field("x", Int32.class);

        @Actor
        public void writer() {
            pair.store(new Pair(1, (short) 1));
        }

        @Actor
        public void reader(II_Result r) {
            r.r1 = pair.load().x();
            r.r2 = x.load();
        }
    }

    /** The field through its cell, then a struct load. */
    @JCStressTest
    @Description("Struct: field(x).load() then load().x(): the second read is not older than the first")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "coherent")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the later read saw an older value than the earlier")
    @State
    public static class CellThenLoad {
        private final Struct<Pair> pair = Shared.shared(new Pair(0, (short) 0));
        private final Int32 x = pair.field("x", Int32.class);

        @Actor
        public void writer() {
            x.store(1);
        }

        @Actor
        public void reader(II_Result r) {
            r.r1 = x.load();
            r.r2 = pair.load().x();
        }
    }

    /** Two struct loads. */
    @JCStressTest
    @Description("Struct: load().x() twice: the second read is not older than the first")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "coherent")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the later load saw an older value than the earlier")
    @State
    public static class TwoLoads {
        private final Struct<Pair> pair = Shared.shared(new Pair(0, (short) 0));

        @Actor
        public void writer() {
            pair.store(new Pair(1, (short) 1));
        }

        @Actor
        public void reader(II_Result r) {
            r.r1 = pair.load().x();
            r.r2 = pair.load().x();
        }
    }

    /** A load, a load of the same memory through a second view, a load again: a compiler that commons the third into the first breaks coherence. */
    @JCStressTest
    @Description("Struct: load().x() through two views of the same memory: no later read is older than an earlier one")
    @Outcome(id = {"0, 0, 0", "0, 0, 1", "0, 1, 1", "1, 1, 1"}, expect = ACCEPTABLE, desc = "coherent")
    @Outcome(expect = FORBIDDEN, desc = "a later read saw an older value than an earlier one")
    @State
    public static class TwoViews {
        private final Struct<Pair> pair = Shared.shared(new Pair(0, (short) 0));
        private final Struct<Pair> alias = Shared.view(Shared.struct(Pair.class), pair.segment(), pair.offset());

        @Actor
        public void writer() {
            pair.store(new Pair(1, (short) 1));
        }

        @Actor
        public void reader(III_Result r) {
            r.r1 = pair.load().x();
            r.r2 = alias.load().x();
            r.r3 = pair.load().x();
        }
    }
}
