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
 * A {@link Pipe#forwarding} pipe (a worker JVM's stream output): the forwarder's takes make no
 * room; its acknowledgements (the caller's credit) do. High-water mark 1: the producer waits for
 * each acknowledgement, so a lost wake-up on {@code acknowledge} would leave it parked (-1).
 * Outcomes: the forwarder's four takes (an item; 0 for the end), then the items emitted.
 */
@JCStressTest
@Description("Pipe.forwarding: emit against next + acknowledge (high-water mark 1)")
@Outcome(id = "1, 2, 3, 0, 3", expect = ACCEPTABLE, desc = "every item once, in order, then the end")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: a wait that never ended")
@Outcome(expect = FORBIDDEN, desc = "an item lost, repeated or out of order, or a wrong ending")
@State
public class PipeForwardingTest {

    @SuppressWarnings("unchecked") // a pipe of integers
    private final Pipe<Integer> pipe = (Pipe<Integer>) (Pipe<?>) Pipe.forwarding(1, "jcstress forwarding pipe");

    @Actor
    public void producer(IIIII_Result r) {
        r.r5 = PipeEnds.emit(pipe, 1, 2, 3);
        pipe.finish();
    }

    @Actor
    public void forwarder(IIIII_Result r) {
        r.r1 = PipeEnds.next(pipe);
        pipe.acknowledge(1);
        r.r2 = PipeEnds.next(pipe);
        pipe.acknowledge(2);
        r.r3 = PipeEnds.next(pipe);
        pipe.acknowledge(3);
        r.r4 = PipeEnds.next(pipe);
    }
}
