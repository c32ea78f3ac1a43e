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
 * {@link Pipe#wakeOnConsumption(long, Runnable)}: a pump that owes credit only once the consumer
 * has taken two items arms the wake for that count, then reads the consumed count; the consumer
 * takes two items. The second take must see the armed count (written before the parked flag it
 * reads), or the pump must see the takes: else the pump sleeps with credit owed. Outcomes: the
 * count the arming side read, then whether the wake ran.
 */
@JCStressTest
@Description("Pipe.wakeOnConsumption(count, …) against the takes that reach the count")
@Outcome(id = {"0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "armed before the second take: it ran the wake")
@Outcome(id = {"2, 0", "2, 1"}, expect = ACCEPTABLE, desc = "took both first: the arming side saw the count")
@Outcome(id = {"0, 0", "1, 0"}, expect = FORBIDDEN, desc = "a lost wake-up: the count reached, unseen, and the wake not run")
@State
public class PipeConsumptionStepWakeTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(4);
    private volatile int woke;

    public PipeConsumptionStepWakeTest() {
        pipe.producedElsewhere(); // the pump waits through wakeOnConsumption
        pipe.emit(7);
        pipe.emit(8);
    }

    @Actor
    public void consumer() {
        PipeEnds.next(pipe);
        PipeEnds.next(pipe);
    }

    @Actor
    public void pump(II_Result r) {
        pipe.wakeOnConsumption(2, () -> woke = 1);
        r.r1 = (int) pipe.consumedCount();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = woke;
    }
}
