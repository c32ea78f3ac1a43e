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
 * A producer waiting for the low tide against a stop from another thread: high-water mark 4, low
 * tide 2, the producer emits five items, the consumer takes one and then fails the pipe (as a
 * stopping worker does; the consumer's thread stands in for the stopper, as jcstress runs no more
 * actors than cores). A fifth emit that waits after the take waits lazily (three in flight) with
 * no timer, so only the stop's wake can end it. Outcomes: how many items the producer emitted
 * before an emit was refused (-1 when the watchdog had to interrupt it), then the take.
 */
@JCStressTest
@Description("Pipe: fail against a producer waiting for the low tide (high-water mark 4)")
@Outcome(id = "[1-4], 1", expect = ACCEPTABLE, desc = "an emit was refused by the stop (the fifth, maybe while it waited)")
@Outcome(id = "5, 1", expect = ACCEPTABLE, desc = "the take made room before the fifth emit looked")
@Outcome(id = "-1, 1", expect = FORBIDDEN, desc = "a lost wake-up: the producer waited for the low tide forever")
@Outcome(expect = FORBIDDEN, desc = "a wrong take")
@State
public class PipeLowTideFailTest {

    private final Pipe<Integer> pipe = PipeEnds.pipeWithoutLazyTimers(4);

    @Actor
    public void producer(II_Result r) {
        r.r1 = PipeEnds.emit(pipe, 1, 2, 3, 4, 5);
    }

    @Actor
    public void consumer(II_Result r) {
        r.r2 = PipeEnds.next(pipe);
        pipe.fail(PipeEnds.FAILURE);
    }
}
