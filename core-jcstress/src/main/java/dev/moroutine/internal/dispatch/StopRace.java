package dev.moroutine.internal.dispatch;

import dev.moroutine.jcstress.Watchdog;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * One dispatch against one stop of a new, idle worker: the state of the tests of {@code drain()}
 * and {@code forceStop()}. The dispatcher starts the worker's thread, waits until it parks, lets
 * the stopper go and dispatches; the arbiter waits (at most {@link Watchdog#LIMIT} each) for the
 * execution and for the worker's end. Outcomes: how the execution ended ({@link WorkerRuns}'s
 * codes), how many times its function ran, and 1 if the worker stopped in time (else 0).
 */
final class StopRace {

    private volatile Thread thread;
    private final ThreadWorker worker;
    private final AtomicInteger runs = new AtomicInteger();
    private final Execution<Integer> execution = WorkerRuns.counting(runs);
    private volatile boolean go;

    StopRace(String name) {
        worker = WorkerRuns.worker(name, started -> thread = started);
    }

    /** The dispatcher's part; a refused execution is failed with the refusal, as the library's callers do. */
    void dispatch() {
        worker.start();
        awaitParked();
        go = true;
        WorkerRuns.dispatchOrFail(worker, execution);
    }

    /**
     * Waits until the worker's thread parks, yielding the CPU, which that thread may need; at most
     * {@link Watchdog#LIMIT}: a thread that has not parked by then is what the race meets.
     */
    private void awaitParked() {
        long deadline = System.nanoTime() + Watchdog.LIMIT.toNanos();
        while (!WorkerRuns.parked(thread) && System.nanoTime() - deadline < 0) {
            Thread.yield();
        }
    }

    /** The stopper's part: waits for the dispatcher's go, spinning and now and then yielding, then returns the worker to stop. */
    ThreadWorker awaitGo() {
        WorkerRuns.spinUntil(() -> go);
        return worker;
    }

    /** The arbiter's part. */
    void judge(III_Result r) {
        r.r1 = WorkerRuns.outcome(execution);
        r.r2 = runs.get();
        try {
            r.r3 = worker.awaitStopped(Watchdog.LIMIT.toNanos(), TimeUnit.NANOSECONDS) ? 1 : 0;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
