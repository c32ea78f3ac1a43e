package dev.moroutine.internal.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A {@code runAll} batch's sender exposes an execution once its dispatch has returned while a
 * worker of the pool takes the batch's next one ({@link Batch}): a worker that is handed the
 * execution sees what the dispatch wrote before it (its worker, that it may be taken, its batch),
 * which it reads before it claims it. Outcomes: whether the worker was handed the execution, and 1 if
 * it saw all of that.
 */
@JCStressTest
@Description("Batch: the sender exposes an execution while a worker takes the batch's next one")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "not exposed yet: nothing handed out")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "handed out, with its dispatch's writes")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "handed out before its worker or stealability was visible")
@State
public class BatchExposeTest {

    private static final ThreadWorker OWNER = WorkerRuns.worker("jcstress-batch-owner", thread -> { });

    private final Batch batch = new Batch(1);
    private final Execution<Integer> execution = WorkerRuns.counting(new AtomicInteger());

    /** What {@code WorkerPool.runAll} and {@link ThreadWorker#dispatch} do, in their order. */
    @Actor
    public void sender() {
        batch.add(0, execution);
        execution.sentTo(OWNER);
        execution.allowStealing();
        batch.sent(1);
    }

    @Actor
    public void taker(II_Result r) {
        Execution<?> next = batch.next();
        r.r1 = next == null ? 0 : 1;
        r.r2 = next != null && next.worker() == OWNER && next.stealable() && next.batch() == batch
                && next.indexInBatch() == 0 ? 1 : 0;
    }
}
