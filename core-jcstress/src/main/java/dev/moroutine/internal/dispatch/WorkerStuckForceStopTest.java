package dev.moroutine.internal.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * A dispatch against a {@code forceStop()} of a worker whose thread is stuck in a task that ignores
 * interrupts ({@link ThreadWorker}'s class comment, "Lifecycle": the racing producer "re-reads the
 * lifecycle after its offer and cancels its own execution when STOPPED, so that it fails at once
 * even if the thread is stuck"). Here the worker's thread never runs at all (its starter does not
 * start it), so nothing but the two actors can complete the execution: either the dispatch is
 * refused, or the dispatcher reads STOPPED after its offer, or the stopper's walk over the queue
 * finds the element. The offer's last store is the element's release store ({@code soRefElement},
 * after the producer-index CAS), which the dispatcher's read of the lifecycle may pass without a
 * fence; the stopper's {@code WeakIterator} skips a claimed slot whose element is still null.
 * Outcome: 1 if the execution is complete once both actors are done, 0 if it was left pending.
 */
@JCStressTest
@Description("ThreadWorker: dispatch against forceStop while the worker's thread is stuck")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "refused, or cancelled by the dispatcher or by the stopper")
@Outcome(id = "0", expect = FORBIDDEN, desc = "admitted and left pending: neither side saw the other")
@State
public class WorkerStuckForceStopTest {

    private static final WorkerGroup POOL = new WorkerGroup() {
        @Override
        public int highWaterMark() {
            return 1;
        }

        @Override
        public Duration taskTimeout() {
            return null;
        }
    };

    private final ThreadWorker worker = new ThreadWorker("jcstress-stuck", 0, POOL, thread -> {});
    private final Execution<Integer> execution = WorkerRuns.counting(new AtomicInteger());

    public WorkerStuckForceStopTest() {
        worker.start(); // makes the thread (the stop interrupts and unparks it) without starting it
    }

    @Actor
    public void dispatcher() {
        WorkerRuns.dispatchOrFail(worker, execution);
    }

    @Actor
    public void stopper() {
        worker.forceStop("stopped");
    }

    @Arbiter
    public void arbiter(I_Result r) {
        r.r1 = execution.isDone() ? 1 : 0;
    }
}
