package dev.moroutine.internal.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A dispatch against a graceful {@code drain()} of the idle worker it goes to ({@link ThreadWorker}'s
 * class comment, "Lifecycle"): the dispatch counts itself in {@code admitted}, then reads the
 * lifecycle; the drain writes the lifecycle and wakes the thread, which reads {@code admitted}
 * before it ends. An admitted dispatch must run (a drain never cancels), a refused one must never
 * be queued, and the thread must end either way. Both actors start when the worker's new thread
 * has parked. Outcomes: see {@link StopRace} (1 ran, 2 cancelled, 3 refused, 0 still pending).
 */
@JCStressTest
@Description("ThreadWorker: dispatch against drain")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "admitted before the drain: it ran, then the worker stopped")
@Outcome(id = "3, 0, 1", expect = ACCEPTABLE, desc = "refused: the worker was draining; it never ran")
@Outcome(id = "0, .*", expect = FORBIDDEN, desc = "left pending: admitted, but neither run nor cancelled")
@Outcome(id = ".*, 0", expect = FORBIDDEN, desc = "the worker did not stop: a lost wake-up")
@Outcome(expect = FORBIDDEN, desc = "cancelled by a graceful drain, or run when refused, or run twice")
@State
public class WorkerDrainTest {

    private final StopRace race = new StopRace("jcstress-drain");

    @Actor
    public void dispatcher() {
        race.dispatch();
    }

    @Actor
    public void stopper() {
        race.awaitGo().drain("drained");
    }

    @Arbiter
    public void arbiter(III_Result r) {
        race.judge(r);
    }
}
