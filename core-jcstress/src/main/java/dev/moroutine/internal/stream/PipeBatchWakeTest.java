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
 * A consumer that parks lazily, for a batch, against the emit that completes the batch (see {@link
 * Pipe}'s class comment, "Waiting"): the consumer's announcement, fence and look at the queue's size,
 * against the producer's item store, fence, read of the announcement and look at the size.
 * High-water mark 8, so a batch is 2 items: the producer emits two and nothing more, the consumer
 * takes one, and the lazy wait has no timer here (longer than the watchdog), so only the second emit
 * can end it. Outcomes: the producer's count, then the take (-1 when the watchdog had to interrupt it).
 */
@JCStressTest
@Description("Pipe: a consumer waiting for a batch against the emit that completes it (high-water mark 8)")
@Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "the take found the first item, or the second emit woke it")
@Outcome(id = "2, -1", expect = FORBIDDEN, desc = "a lost wake-up: the consumer waited for the batch forever")
@Outcome(expect = FORBIDDEN, desc = "a wrong take")
@State
public class PipeBatchWakeTest {

    private final Pipe<Integer> pipe = PipeEnds.pipeWithoutLazyTimers(8);

    @Actor
    public void producer(II_Result r) {
        r.r1 = PipeEnds.emit(pipe, 1, 2);
    }

    @Actor
    public void consumer(II_Result r) {
        r.r2 = PipeEnds.next(pipe);
    }
}
