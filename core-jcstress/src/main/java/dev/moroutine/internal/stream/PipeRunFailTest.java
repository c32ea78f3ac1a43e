package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.jcstress.Watchdog;
import java.util.concurrent.CancellationException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A run ({@link Pipe#emitRun}, two items, one stretch) against a stop from the consumer's thread
 * (two actors: jcstress skips a third on two cores), which then takes: the late-item settling
 * with a count that covers the whole stretch. A run that returns
 * is taken whole before the failure; a refused run leaves at most a prefix taken, never both items.
 * Outcomes: the run (2 returned, -3 refused, -1 the watchdog had to interrupt it), then the
 * consumer's three takes (an item; -2 the producer's failure; -1 a take the watchdog interrupted).
 */
@JCStressTest
@Description("Pipe: a run of two items against a stop, then the takes, on the other thread (high-water mark 2)")
@Outcome(id = "2, 1, 2, -2", expect = ACCEPTABLE, desc = "the run returned and was taken whole, then the failure")
@Outcome(id = "-3, -2, -2, -2", expect = ACCEPTABLE, desc = "the run was refused and nothing of it taken")
@Outcome(id = "-3, 1, -2, -2", expect = ACCEPTABLE_INTERESTING, desc = "the run was refused after its first item was taken")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: a wait that never ended")
@Outcome(expect = FORBIDDEN, desc = "a returned run not taken whole, a refused run taken whole, or a wrong ending")
@State
public class PipeRunFailTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(2);

    @Actor
    public void producer(IIII_Result r) {
        r.r1 = Watchdog.bounded(() -> {
            try {
                pipe.emitRun(new Integer[] {1, 2}, 2);
                return 2;
            } catch (CancellationException refused) {
                return PipeEnds.CANCELLED;
            }
        });
    }

    @Actor
    public void stopperThenConsumer(IIII_Result r) {
        pipe.fail(PipeEnds.FAILURE);
        r.r2 = PipeEnds.next(pipe);
        r.r3 = PipeEnds.next(pipe);
        r.r4 = PipeEnds.next(pipe);
    }
}
