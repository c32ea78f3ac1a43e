package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * Both of {@link Pipe}'s waits (its class comment, "Waiting"), on a pipe of one item: the
 * consumer waits while it is empty (an emit's item store, fence and read of
 * {@code consumerParked} against the consumer's write of {@code consumerParked}, fence and last
 * poll before it parks; then {@code finish()} against the same wait), and the producer waits while
 * it is full (the consumer's count store and wake against the producer's announcement and last
 * check before it parks). Outcomes: the consumer's four takes (an item; 0 for the end; -1 for a
 * take the watchdog had to interrupt), then the number of items the producer emitted (-1 when
 * interrupted).
 */
@JCStressTest
@Description("Pipe: emit, next and finish, each side waiting for the other (high-water mark 1)")
@Outcome(id = "1, 2, 3, 0, 3", expect = ACCEPTABLE, desc = "every item once, in order, then the end")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: a wait that never ended")
@Outcome(expect = FORBIDDEN, desc = "an item lost, repeated or out of order, or a wrong ending")
@State
public class PipeHandOffTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(1);

    @Actor
    public void producer(IIIII_Result r) {
        r.r5 = PipeEnds.emit(pipe, 1, 2, 3);
        pipe.finish();
    }

    @Actor
    public void consumer(IIIII_Result r) {
        r.r1 = PipeEnds.next(pipe);
        r.r2 = PipeEnds.next(pipe);
        r.r3 = PipeEnds.next(pipe);
        r.r4 = PipeEnds.next(pipe);
    }
}
