package dev.moroutine.internal.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A dispatch to an idle worker whose thread is about to park ({@link ThreadWorker}'s class
 * comment, "Hand-off"): the producer offers, fences and reads {@code parked}; the thread sets
 * {@code parked}, polls once more and parks. Each actor dispatches to a worker of its own (so that
 * no other dispatch can wake a worker that a lost wake-up left asleep) and waits for its
 * execution, spinning at first: the next sample's dispatch then follows the previous execution's
 * completion closely, while the worker's thread is on its way from that run to its park. Outcome
 * of each actor: 1 if the execution ran and the worker's thread had been seen parked before the
 * offer, 2 if it ran and the thread had not parked yet, 0 if it was still queued after
 * {@link dev.moroutine.jcstress.Watchdog#LIMIT}, 3 if it ended otherwise.
 */
@JCStressTest
@Description("ThreadWorker: a dispatch's offer against its idle thread's park")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both workers were parked: each dispatch woke its worker")
@Outcome(id = {"1, 2", "2, 1", "2, 2"}, expect = ACCEPTABLE_INTERESTING,
        desc = "a worker had not parked yet (on its way from its last run to its park): its thread took the execution")
@Outcome(id = {"0, .*", ".*, 0"}, expect = FORBIDDEN, desc = "a lost wake-up: the execution stayed queued while its worker slept")
@Outcome(expect = FORBIDDEN, desc = "an execution that did not run normally")
@State
public class WorkerOfferParkTest {

    /** About the time a run takes on a worker that is awake: longer waits park. */
    private static final int SPINS = 1_000;

    private static final WorkerRuns.ForkWorker FIRST = new WorkerRuns.ForkWorker("jcstress-offer-park-1");
    private static final WorkerRuns.ForkWorker SECOND = new WorkerRuns.ForkWorker("jcstress-offer-park-2");

    private final Execution<Integer> first = WorkerRuns.counting(new AtomicInteger());
    private final Execution<Integer> second = WorkerRuns.counting(new AtomicInteger());

    private static int dispatchAndAwait(WorkerRuns.ForkWorker target, Execution<Integer> execution) {
        int seen = target.parked() ? 1 : 2;
        target.worker.dispatch(execution);
        for (int spins = 0; spins < SPINS && !execution.isDone(); spins++) {
            Thread.onSpinWait();
        }
        int outcome = WorkerRuns.outcome(execution);
        return outcome == WorkerRuns.RAN ? seen : outcome == WorkerRuns.PENDING ? 0 : 3;
    }

    @Actor
    public void dispatcher1(II_Result r) {
        r.r1 = dispatchAndAwait(FIRST, first);
    }

    @Actor
    public void dispatcher2(II_Result r) {
        r.r2 = dispatchAndAwait(SECOND, second);
    }
}
