package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link Pipe#wakeOnConsumption(long, Runnable)} armed again: a pump armed for the first take,
 * then (having seen that take itself, or not yet) arms for the fifth; the consumer takes once. The
 * take may run the first arming's wake, or none, but never the second's: its count is not reached.
 * Outcomes: whether the first wake ran, then whether the second did.
 */
@JCStressTest
@Description("Pipe.wakeOnConsumption(count, …) armed again while a take runs the last arming")
@Outcome(id = {"0, 0", "1, 0"}, expect = ACCEPTABLE, desc = "the first arming's wake, or none (it was replaced first)")
@Outcome(id = {"0, 1", "1, 1"}, expect = FORBIDDEN, desc = "the second arming's wake ran early: 1 taken, 5 awaited")
@State
public class PipeConsumptionStepRearmTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(4);
    private volatile int first;
    private volatile int second;

    public PipeConsumptionStepRearmTest() {
        pipe.producedElsewhere();
        pipe.emit(7);
        pipe.emit(8);
        pipe.wakeOnConsumption(1, () -> first = 1);
    }

    @Actor
    public void consumer() {
        PipeEnds.next(pipe);
    }

    @Actor
    public void pump() {
        pipe.wakeOnConsumption(5, () -> second = 1);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = first;
        r.r2 = second;
    }
}
