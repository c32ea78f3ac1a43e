package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A producer that waited for room, was woken by a take and waits again for the low tide (half the
 * high-water mark in flight) against the take that reaches it: the consumer's count store and its
 * read of the lazy announcement, against the producer's announcement and its last look at the
 * count. High-water mark 4, low tide 2: the producer emits five items, so the fifth waits until the
 * consumer has taken one (then two) of the first four. The consumer takes two and leaves, so no
 * later wait of its own can hide a lost wake-up, and the lazy wait has no timer here (longer than
 * the watchdog), so only the take can end it. Outcomes: the producer's count (-1 when the watchdog
 * had to interrupt it), then the two takes.
 */
@JCStressTest
@Description("Pipe: a producer waiting for the low tide against the take that reaches it (high-water mark 4)")
@Outcome(id = "5, 1, 2", expect = ACCEPTABLE, desc = "the second take reached the low tide and the producer saw it")
@Outcome(id = "-1, 1, 2", expect = FORBIDDEN, desc = "a lost wake-up: the producer waited for the low tide forever")
@Outcome(expect = FORBIDDEN, desc = "a wrong take")
@State
public class PipeLowTideTest {

    private final Pipe<Integer> pipe = PipeEnds.pipeWithoutLazyTimers(4);

    @Actor
    public void producer(III_Result r) {
        r.r1 = PipeEnds.emit(pipe, 1, 2, 3, 4, 5);
    }

    @Actor
    public void consumer(III_Result r) {
        r.r2 = PipeEnds.next(pipe);
        r.r3 = PipeEnds.next(pipe);
    }
}
