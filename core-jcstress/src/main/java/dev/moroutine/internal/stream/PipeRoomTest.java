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
 * The producer waits for room that one take makes, and nothing else: the consumer's count store
 * and wake in {@code next()} against the producer's announcement ({@code ProducerWait.parked}) and
 * last check for room before it parks. The consumer takes once and leaves, so no later wait of its
 * own (whose slow path also wakes the producer) can hide a lost wake-up. Outcomes: the number of
 * items the producer emitted (-1 when the watchdog had to interrupt it), then the consumer's take.
 */
@JCStressTest
@Description("Pipe: a producer waiting for room against the one take that makes it (high-water mark 1)")
@Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "the take made room and the producer saw it")
@Outcome(id = "-1, 1", expect = FORBIDDEN, desc = "a lost wake-up: the producer waited for room forever")
@Outcome(expect = FORBIDDEN, desc = "a wrong take")
@State
public class PipeRoomTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(1);

    @Actor
    public void producer(II_Result r) {
        r.r1 = PipeEnds.emit(pipe, 1, 2);
    }

    @Actor
    public void consumer(II_Result r) {
        r.r2 = PipeEnds.next(pipe);
    }
}
