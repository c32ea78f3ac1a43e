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
 * Two dispatches to an idle worker in one {@link DeferredWakes} batch, against its thread on its
 * way to park: the dispatches offer and fence but leave {@code parked} unread until {@code wakeAll()},
 * and the thread sets {@code parked}, polls once more and parks in between or not. As in
 * {@link WorkerOfferParkTest}, each actor has a worker of its own and follows its previous sample
 * closely. Outcome of each actor: 1 if both executions ran and the thread had been seen parked
 * before the batch, 2 if they ran and it had not parked yet, 0 if one was still queued after
 * {@link dev.moroutine.jcstress.Watchdog#LIMIT}, 3 if one ended otherwise. Without {@code wakeAll()}, a
 * parked worker is never woken: outcome 0.
 */
@JCStressTest
@Description("DeferredWakes: a batch's wake-up, read after the batch, against its idle worker's park")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both workers were parked: each batch's end woke its worker")
@Outcome(id = {"1, 2", "2, 1", "2, 2"}, expect = ACCEPTABLE_INTERESTING,
        desc = "a worker had not parked yet: its thread took the executions, or parked after the offers and was woken")
@Outcome(id = {"0, .*", ".*, 0"}, expect = FORBIDDEN, desc = "a lost wake-up: an execution stayed queued while its worker slept")
@Outcome(expect = FORBIDDEN, desc = "an execution that did not run normally")
@State
public class WorkerDeferredWakeTest {

    /** About the time a run takes on a worker that is awake: longer waits park. */
    private static final int SPINS = 1_000;

    private static final WorkerRuns.ForkWorker FIRST = new WorkerRuns.ForkWorker("jcstress-deferred-wake-1");
    private static final WorkerRuns.ForkWorker SECOND = new WorkerRuns.ForkWorker("jcstress-deferred-wake-2");

    private final AtomicInteger runs1 = new AtomicInteger();
    private final AtomicInteger runs2 = new AtomicInteger();
    private final Execution<Integer> first1 = WorkerRuns.counting(runs1);
    private final Execution<Integer> first2 = WorkerRuns.counting(runs1);
    private final Execution<Integer> second1 = WorkerRuns.counting(runs2);
    private final Execution<Integer> second2 = WorkerRuns.counting(runs2);

    private static int dispatchBothAndAwait(WorkerRuns.ForkWorker target, Execution<Integer> one, Execution<Integer> two) {
        int seen = target.parked() ? 1 : 2;
        DeferredWakes wakes = new DeferredWakes();
        wakes.defer(() -> {
            target.worker.dispatch(one);
            target.worker.dispatch(two);
            return null;
        });
        wakes.wakeAll();
        for (int spins = 0; spins < SPINS && !two.isDone(); spins++) {
            Thread.onSpinWait();
        }
        int a = WorkerRuns.outcome(one);
        int b = WorkerRuns.outcome(two);
        if (a == WorkerRuns.PENDING || b == WorkerRuns.PENDING) {
            return 0;
        }
        return a == WorkerRuns.RAN && b == WorkerRuns.RAN ? seen : 3;
    }

    @Actor
    public void dispatcher1(II_Result r) {
        r.r1 = dispatchBothAndAwait(FIRST, first1, first2);
    }

    @Actor
    public void dispatcher2(II_Result r) {
        r.r2 = dispatchBothAndAwait(SECOND, second1, second2);
    }
}
