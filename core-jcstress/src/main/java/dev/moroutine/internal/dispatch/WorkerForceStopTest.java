package dev.moroutine.internal.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A dispatch against a {@code forceStop()} of the idle worker it goes to ({@link ThreadWorker}'s
 * class comment, "Lifecycle"): besides the admission hand-shake of a drain, the dispatch fences
 * after its offer and cancels its own execution if it then reads STOPPED, the stopper cancels
 * what it finds running or queued, and the ending thread cancels what is left. Every execution
 * must complete exactly once, and the thread must end. Both actors start when the worker's new
 * thread has parked. Outcomes: see {@link StopRace} (1 ran, 2 cancelled, 3 refused, 0 still pending).
 */
@JCStressTest
@Description("ThreadWorker: dispatch against forceStop")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "it ran before the stop")
@Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "admitted, then cancelled before it started")
@Outcome(id = "3, 0, 1", expect = ACCEPTABLE, desc = "refused: the worker was stopped")
@Outcome(id = "2, 1, 1", expect = ACCEPTABLE_INTERESTING, desc = "the stop cancelled it while it ran")
@Outcome(id = "0, .*", expect = FORBIDDEN, desc = "left pending: admitted, but neither run nor cancelled")
@Outcome(id = ".*, 0", expect = FORBIDDEN, desc = "the worker did not stop: a lost wake-up")
@Outcome(expect = FORBIDDEN, desc = "run when refused, or run twice")
@State
public class WorkerForceStopTest {

    private final StopRace race = new StopRace("jcstress-force-stop");

    @Actor
    public void dispatcher() {
        race.dispatch();
    }

    @Actor
    public void stopper() {
        race.awaitGo().forceStop("stopped");
    }

    @Arbiter
    public void arbiter(III_Result r) {
        race.judge(r);
    }
}
