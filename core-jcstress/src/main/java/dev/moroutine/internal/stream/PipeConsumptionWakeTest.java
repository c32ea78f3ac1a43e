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
 * {@link Pipe#wakeOnConsumption}, the hand-shake of a producer in another process (a worker JVM's
 * pump) that never parks in the pipe: it arms the wake, then reads the consumed count; the
 * consumer publishes its count, then runs an armed wake. One of the two must see the other, or
 * the pump would sleep while credit is owed. Outcomes: the count the arming side read, then
 * whether the wake ran.
 */
@JCStressTest
@Description("Pipe.wakeOnConsumption against a take")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "armed first: the take ran the wake")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "took first: the arming side saw the count")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "a lost wake-up: the take unseen and the wake not run")
@State
public class PipeConsumptionWakeTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(4);
    private volatile int woke;

    public PipeConsumptionWakeTest() {
        pipe.producedElsewhere(); // the pump waits through wakeOnConsumption
        pipe.emit(7);
    }

    @Actor
    public void consumer() {
        PipeEnds.next(pipe);
    }

    @Actor
    public void pump(II_Result r) {
        pipe.wakeOnConsumption(() -> woke = 1);
        r.r1 = (int) pipe.consumedCount();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = woke;
    }
}
