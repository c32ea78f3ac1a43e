package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A consumer whose lazy wait for a batch ends by its (short) timer
 * and then waits eagerly, against one emit, short of a batch, that lands anywhere around the
 * change from {@code PARKED_LAZY} to {@code AWAKE} to {@code PARKED_EAGER}: an emit that read
 * {@code PARKED_LAZY} and so woke nobody must be seen by the eager wait's last look. High-water
 * mark 8 (a batch of 2), a lazy timer of 2 µs, no finish: only the emit can end the eager wait, so
 * a lost wake-up shows as -1. Outcomes: the producer's count, then the take.
 */
@JCStressTest
@Description("Pipe: a lazy wait ended by its timer, then an eager one, against a single emit (high-water mark 8)")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the take found the item, or the emit woke the eager wait")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: the consumer waited forever")
@Outcome(expect = FORBIDDEN, desc = "a wrong take")
@State
public class PipeLazyThenEagerWakeTest {

    private static int seed;

    private final Pipe<Integer> pipe = new Pipe<>(8, new Pipe.ProducerWait(), "jcstress pipe", false, 2_000);
    /** How many spins the emit waits, as in PipeAwaitReadyTest: it sweeps the consumer's changes of state. */
    private final int delay = (seed = seed * 1_103_515_245 + 12_345) >>> 22;

    @Actor
    public void producer(II_Result r) {
        for (int i = 0; i < delay; i++) {
            Thread.onSpinWait();
        }
        r.r1 = PipeEnds.emit(pipe, 1);
    }

    @Actor
    public void consumer(II_Result r) {
        r.r2 = PipeEnds.next(pipe);
    }
}
