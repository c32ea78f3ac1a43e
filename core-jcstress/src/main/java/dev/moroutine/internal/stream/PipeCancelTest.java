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
 * The consumer takes one item and closes the pipe while the producer emits three into a pipe of
 * one item: the third emit finds no room, so it must end with a {@code CancellationException}
 * whether it parks before or after {@code cancel()} (the state CAS and the producer's wake against
 * the producer's announcement and last check of the state before it parks). Outcomes: the number
 * of items the producer emitted before its emit threw (-1 when the watchdog had to interrupt it),
 * then the consumer's take.
 */
@JCStressTest
@Description("Pipe: cancel against a producer that emits into a full pipe")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the second emit saw the cancel")
@Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "the second emit went in before the cancel; the third saw it")
@Outcome(id = "-1, .*", expect = FORBIDDEN, desc = "a lost wake-up: the producer waited for room forever")
@Outcome(expect = FORBIDDEN, desc = "an emit into a cancelled pipe, or a wrong take")
@State
public class PipeCancelTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(1);

    @Actor
    public void producer(II_Result r) {
        r.r1 = PipeEnds.emit(pipe, 1, 2, 3);
    }

    @Actor
    public void consumer(II_Result r) {
        r.r2 = PipeEnds.next(pipe);
        pipe.cancel();
    }
}
