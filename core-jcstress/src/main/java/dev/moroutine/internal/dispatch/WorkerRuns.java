package dev.moroutine.internal.dispatch;

import dev.moroutine.jcstress.Watchdog;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What the worker tests share: executions that count their runs, workers whose threads float over
 * the fork's CPUs, and the outcome codes of an execution.
 */
final class WorkerRuns {

    /** The execution completed with its result: it ran. */
    static final int RAN = 1;
    /** It was cancelled (before or while it ran). */
    static final int CANCELLED = 2;
    /** Its dispatch was refused, and the dispatcher failed it with the refusal. */
    static final int REJECTED = 3;
    /** It failed otherwise. */
    static final int FAILED = 4;
    /** It was still pending after {@link Watchdog#LIMIT}: lost. */
    static final int PENDING = 0;

    /** The tests' workers belong to a pool (they park when idle and never retire); it sets nothing they use. */
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

    /**
     * Starts the workers' threads. jcstress pins each actor to a CPU, and a thread inherits the
     * CPUs of the thread that starts it: a worker thread started by an actor would share that
     * actor's CPU and never run beside it. This thread is made while the class is initialised, by
     * jcstress's first (unpinned) construction of a test's state, so the threads it starts may run
     * on any CPU of the fork.
     */
    private static final ThreadPoolExecutor STARTER = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
            task -> Thread.ofPlatform().name("jcstress-worker-starter").daemon(true).unstarted(task));

    static {
        STARTER.prestartCoreThread();
    }

    private WorkerRuns() {}

    /** A pool worker, not started, whose thread is handed to {@code started} before it starts. */
    static ThreadWorker worker(String name, Consumer<Thread> started) {
        return new ThreadWorker(name, 0, POOL, thread -> {
            started.accept(thread);
            STARTER.execute(thread::start);
        });
    }

    /** A pool worker that lives as long as the fork (a test's static field), and its thread. */
    static final class ForkWorker {
        private volatile Thread thread;
        final ThreadWorker worker;

        ForkWorker(String name) {
            worker = worker(name, started -> thread = started);
            worker.start();
        }

        /** Whether its thread is parked now. */
        boolean parked() {
            return WorkerRuns.parked(thread);
        }
    }

    /** Dispatches {@code execution} to {@code worker}; a refused one is failed with the refusal, as the library's callers do. */
    static void dispatchOrFail(ThreadWorker worker, Execution<Integer> execution) {
        try {
            worker.dispatch(execution);
        } catch (RejectedExecutionException refused) {
            execution.completeExceptionally(refused);
        }
    }

    /** Spins until {@code done} says so, now and then yielding the CPU, which a worker's thread may need. */
    static void spinUntil(BooleanSupplier done) {
        for (int spins = 1; !done.getAsBoolean(); spins++) {
            if ((spins & 63) == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** An execution that counts its runs in {@code runs}. */
    static Execution<Integer> counting(AtomicInteger runs) {
        return new Execution<>(new Counting(runs), null);
    }

    /** A task whose function counts its runs in its one argument and returns the count. */
    private static final class Counting extends Invocation {
        Counting(AtomicInteger runs) {
            super(new Object[] {runs});
        }

        @Override
        public String id() {
            return "jcstress#counting";
        }

        @Override
        protected Object invoke(Object[] resolved) {
            return ((AtomicInteger) resolved[0]).incrementAndGet();
        }
    }

    /** How {@code execution} ended, waiting for it at most {@link Watchdog#LIMIT}. */
    static int outcome(Execution<Integer> execution) {
        try {
            execution.get(Watchdog.LIMIT.toNanos(), TimeUnit.NANOSECONDS);
            return RAN;
        } catch (TimeoutException lost) {
            return PENDING;
        } catch (CancellationException cancelled) {
            return CANCELLED;
        } catch (ExecutionException failed) {
            return failed.getCause() instanceof RejectedExecutionException ? REJECTED : FAILED;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return FAILED;
        }
    }

    /** Whether {@code thread} is parked (an idle worker's thread waits without a timeout). */
    static boolean parked(Thread thread) {
        return thread.getState() == Thread.State.WAITING;
    }
}
