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
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A shared execution claimed at once by the worker it was sent to and by an idle sibling
 * ({@link Execution}'s class comment): exactly one of them may run it, and the execution then names
 * that one as its worker, whom a stopper interrupts. Outcomes: whether the owner's claim won (1 or
 * 0), whether the sibling's did, and 1 if the execution's worker is the winner (else 0).
 */
@JCStressTest
@Description("Execution: the worker it was sent to and an idle sibling claim it at once")
@Outcome(id = {"1, 0, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "one claim won, and the execution names the winner")
@Outcome(id = {"1, 1, .*"}, expect = FORBIDDEN, desc = "both claims won: the task would run twice")
@Outcome(id = {"0, 0, .*"}, expect = FORBIDDEN, desc = "no claim won: the task would never run")
@Outcome(expect = FORBIDDEN, desc = "the execution names a worker that does not run it")
@State
public class ExecutionClaimTest {

    private static final ThreadWorker OWNER = WorkerRuns.worker("jcstress-claim-owner", thread -> { });
    private static final ThreadWorker SIBLING = WorkerRuns.worker("jcstress-claim-sibling", thread -> { });

    private final Execution<Integer> execution = WorkerRuns.counting(new AtomicInteger());
    private boolean ownerWon;
    private boolean siblingWon;

    /** Sent to its owner, as {@link ThreadWorker#dispatch} does before the queue hand-off. */
    public ExecutionClaimTest() {
        execution.sentTo(OWNER);
    }

    @Actor
    public void owner() {
        ownerWon = execution.claim(OWNER);
    }

    @Actor
    public void sibling() {
        siblingWon = execution.claim(SIBLING);
    }

    @Arbiter
    public void judge(III_Result r) {
        r.r1 = ownerWon ? 1 : 0;
        r.r2 = siblingWon ? 1 : 0;
        Worker named = execution.worker();
        r.r3 = (ownerWon && named == OWNER) || (siblingWon && named == SIBLING) ? 1 : 0;
    }
}
