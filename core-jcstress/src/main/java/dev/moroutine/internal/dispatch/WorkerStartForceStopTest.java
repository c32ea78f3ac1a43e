package dev.moroutine.internal.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.jcstress.Watchdog;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A {@code forceStop()} against a worker's thread starting an execution ({@link ThreadWorker}'s
 * class comment, "Lifecycle"): the thread publishes the execution it is about to run with a release
 * store, marks it RUNNING and fences ({@link Execution#begin}), then reads the lifecycle; the
 * stopper writes STOPPED, then reads what the thread runs and cancels it. The function waits,
 * deaf to interrupts, until the stopper has returned, so a run that neither side saw (started
 * after the stop, unseen by the stopper) would end with its result. The thread is awake when the
 * dispatch comes: it has just run a first task and spins for the next. Outcomes: how the execution
 * ended ({@link WorkerRuns}'s codes) and how many times its function started.
 */
@JCStressTest
@Description("ThreadWorker: forceStop against the start of an execution")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "cancelled before it started, by the stopper or by the thread")
@Outcome(id = "3, 0", expect = ACCEPTABLE, desc = "refused: the worker was stopped")
@Outcome(id = "2, 1", expect = ACCEPTABLE_INTERESTING, desc = "started before the stop, which saw it running and cancelled it")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "ran to its end: started after the stop, which did not see it")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class WorkerStartForceStopTest {

    private final AtomicInteger runs = new AtomicInteger();
    private final ThreadWorker worker = WorkerRuns.worker("jcstress-start-stop", thread -> { });
    private final Execution<Integer> first = WorkerRuns.counting(new AtomicInteger());
    private final Execution<Integer> execution = new Execution<>(new WaitsForStop(this), null);
    private volatile boolean go;
    private volatile boolean stopped;

    @Actor
    public void dispatcher() {
        worker.start();
        worker.dispatch(first);
        first.join(); // the thread now spins for its next task
        go = true;
        WorkerRuns.dispatchOrFail(worker, execution);
    }

    @Actor
    public void stopper() {
        WorkerRuns.spinUntil(() -> go);
        worker.forceStop("stopped");
        stopped = true;
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = WorkerRuns.outcome(execution);
        r.r2 = runs.get();
    }

    /** Counts its start, then waits until the stopper has returned (at most {@link Watchdog#LIMIT}), ignoring interrupts. */
    private static final class WaitsForStop extends Invocation {
        WaitsForStop(WorkerStartForceStopTest test) {
            super(new Object[] {test});
        }

        @Override
        public String id() {
            return "jcstress#waitsForStop";
        }

        @Override
        protected Object invoke(Object[] resolved) {
            WorkerStartForceStopTest test = (WorkerStartForceStopTest) resolved[0];
            int started = test.runs.incrementAndGet();
            long deadline = System.nanoTime() + Watchdog.LIMIT.toNanos();
            while (!test.stopped && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            return started;
        }
    }
}
