package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.jcstress.Watchdog;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A run ({@link Pipe#emitRun}) against a consumer waiting for an item: the run's item stores,
 * its one fence and its read of {@code consumerParked} against the consumer's write of
 * {@code consumerParked}, fence and last poll before it parks. The producer emits the run and
 * nothing more (no {@code finish()}, whose wake would hide a lost one), so only the run's own
 * wake can end the consumer's wait. Outcomes: the number of items the run emitted (-1 when the
 * watchdog had to interrupt it), then the consumer's two takes (-1 for a take the watchdog had
 * to interrupt).
 */
@JCStressTest
@Description("Pipe: a run of two items against a consumer waiting for the first (high-water mark 2)")
@Outcome(id = "2, 1, 2", expect = ACCEPTABLE, desc = "the run woke the consumer, which took both items in order")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: the consumer waited forever")
@Outcome(expect = FORBIDDEN, desc = "an item lost, repeated or out of order")
@State
public class PipeRunHandOffTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(2);

    @Actor
    public void producer(III_Result r) {
        r.r1 = Watchdog.bounded(() -> {
            pipe.emitRun(new Integer[] {1, 2}, 2);
            return 2;
        });
    }

    @Actor
    public void consumer(III_Result r) {
        r.r2 = PipeEnds.next(pipe);
        r.r3 = PipeEnds.next(pipe);
    }
}
