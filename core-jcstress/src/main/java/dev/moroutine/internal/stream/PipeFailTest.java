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
 * The producer fails (as a stopping worker fails it, from a thread of its own) while the consumer
 * takes the item already in the pipe and then waits: {@code fail()} moves the state to
 * {@code FAILING}, publishes the failure, sets {@code DONE} and wakes the consumer, whose reads of
 * the state and the failure race with those steps. The item must come first, then the failure;
 * never an end without it. Outcomes: the consumer's two takes (an item; 0 for the end; -2 for the
 * producer's failure, wrapped in a {@code TaskFailedException}; -1 for a take the watchdog had to
 * interrupt).
 */
@JCStressTest
@Description("Pipe: fail against a consumer taking the next item")
@Outcome(id = "1, -2", expect = ACCEPTABLE, desc = "the item, then the producer's failure")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the failure lost: the stream seemed to end normally")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: a wait that never ended")
@Outcome(expect = FORBIDDEN, desc = "the item lost, or a wrong ending")
@State
public class PipeFailTest {

    private final Pipe<Integer> pipe = PipeEnds.pipe(4);

    public PipeFailTest() {
        pipe.emit(1); // by the thread that makes the state: the consumer's first take finds it at once
    }

    @Actor
    public void producer() {
        pipe.fail(PipeEnds.FAILURE);
    }

    @Actor
    public void consumer(II_Result r) {
        r.r1 = PipeEnds.next(pipe);
        r.r2 = PipeEnds.next(pipe);
    }
}
