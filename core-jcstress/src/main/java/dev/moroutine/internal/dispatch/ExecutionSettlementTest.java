package dev.moroutine.internal.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A worker sets an execution's listener ({@link Execution#onSettled}) and then looks whether it is
 * done, while a caller cancels it: the worker learns of the cancellation one way or the other, and
 * never from the listener twice. Outcomes: how many times the listener was told, and 1 if the
 * worker's look saw the execution cancelled (else 0).
 */
@JCStressTest
@Description("Execution: a listener set while the execution is cancelled")
@Outcome(id = {"1, 0", "1, 1", "0, 1"}, expect = ACCEPTABLE, desc = "the worker learned of the cancellation")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "neither the listener nor the look: a cancelled task would run on")
@Outcome(expect = FORBIDDEN, desc = "the listener was told more than once")
@State
public class ExecutionSettlementTest {

    private final Execution<Integer> execution = WorkerRuns.counting(new AtomicInteger());
    private final AtomicInteger told = new AtomicInteger();
    private boolean sawCancelled;

    @Actor
    public void worker() {
        execution.onSettled((value, failure) -> told.incrementAndGet());
        sawCancelled = execution.isCancelled();
    }

    @Actor
    public void caller() {
        execution.cancel(false);
    }

    @Arbiter
    public void judge(II_Result r) {
        r.r1 = told.get();
        r.r2 = sawCancelled ? 1 : 0;
    }
}
