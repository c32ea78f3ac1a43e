package dev.moroutine.internal.dispatch;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker of the deterministic test backend ({@link ManualBackend}), in the style of OkHttp's
 * {@code TaskFaker}: {@link #dispatch} only queues, and an execution runs when a test asks
 * ({@link #runNext()}, or the backend's {@code runNext}, {@code runUntilIdle}, {@code runUntil}), on
 * the thread that asks. A test so decides when each task runs relative to what the pool does (a
 * dispatch, then {@code close()}, then the run), where the thread backend can only race.
 *
 * <h2>Who runs it</h2>
 * Any thread may dispatch to, stop or read the worker; one thread at a time runs it. {@code claimed}
 * is that right: a run claims it (CAS) and gives it back when it returns; the step that finishes the
 * worker (cancels what is left, closes the task-arg values, counts {@code stopped} down) claims it
 * and keeps it. So the task-arg values ({@link WorkerContext}) are confined to the claim holder, as a
 * thread worker's are to its thread, and are closed only when no run is in progress. A run may drive
 * another worker on its own thread (a consumer task letting its producer's worker run): both are then
 * current on that thread, as the consumer's thread is blocked in its task meanwhile, and an interrupt
 * aimed at the outer run while the inner one runs is taken by the inner one.
 *
 * <h2>Lifecycle</h2>
 * <pre>
 * OPEN ──drain()──► DRAINING ──a run step finds nothing left──► STOPPED (finished)
 *   └──────────────forceStop()────────────────────────────────┘
 * </pre>
 * As in {@link ThreadWorker}, a dispatch counts itself in {@code dispatching} before it reads the
 * lifecycle and out after its offer; the stopping side writes the lifecycle, then reads
 * {@code dispatching} (all volatile), so a dispatch either sees the stop and is refused, or is waited
 * for and then run (after a drain) or cancelled (after a forced stop). A dispatch that finds STOPPED
 * after its offer takes its execution back and cancels it, so nothing accepted stays queued once the
 * worker has finished. A drained worker finishes at the first run step that finds nothing left:
 * {@link #awaitStopped} runs those steps on the caller's thread, so a pool's {@code close()} runs
 * what was accepted before it, there and then.
 *
 * <h2>Interrupts</h2>
 * {@link #interruptRun()} interrupts the thread that runs the current execution (the execution's
 * own hand-shake guarantees that the run it means is in progress). A forced stop interrupts the run
 * through the worker's hand-shake on {@code interrupt}: it moves RUNNING to INTERRUPTING, interrupts,
 * and sets INTERRUPTED; the run leaves by moving RUNNING to IDLE, or waits for INTERRUPTED. The run
 * then clears the interrupt and restores the driving thread's own interrupt status, so an interrupt
 * aimed at a task reaches neither the test's code nor the next task run on that thread.
 */
public final class ManualWorker implements Worker {

    private static final int OPEN = 0;
    private static final int DRAINING = 1;
    private static final int STOPPED = 2;

    private static final int IDLE = 0;
    private static final int RUNNING = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;

    /** The workers whose runs are in progress on this thread, innermost first. */
    private static final ThreadLocal<ManualWorker> CURRENT = new ThreadLocal<>();

    /** A queued execution and its place in the backend's dispatch order. */
    private record Queued(long sequence, Execution<?> execution) {}

    private final String name;
    private final int index;
    private final WorkerGroup group;
    private final ManualBackend backend;
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger lifecycle = new AtomicInteger(OPEN);
    private final AtomicInteger dispatching = new AtomicInteger();
    /** Accepted and not yet completed: what {@link #activeCount()} reports. */
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final AtomicInteger interrupt = new AtomicInteger(IDLE);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final SpinBudget callerSpin = new SpinBudget(0); // nothing runs while a caller spins
    private final WorkerContext context;
    private volatile Thread runner;
    private volatile Execution<?> running;
    private volatile String stopReason = "worker stopped";

    ManualWorker(String name, int index, WorkerGroup group, ManualBackend backend) {
        this.name = name;
        this.index = index;
        this.group = group;
        this.backend = backend;
        this.context = new WorkerContext(name);
    }

    /**
     * The worker whose execution runs on the calling thread now (the innermost one, if a run drives
     * another worker).
     *
     * @return the worker, or null if no manual worker runs here
     */
    public static ManualWorker current() {
        return CURRENT.get();
    }

    @Override
    public void dispatch(Execution<?> execution) {
        execution.sentTo(this); // records the worker; may refuse (the execution would wait for itself)
        dispatching.incrementAndGet();
        Queued entry;
        try {
            if (lifecycle.get() != OPEN) {
                throw new RejectedExecutionException(stopReason + "; " + execution.invocation() + " was not queued");
            }
            execution.admitted();
            entry = new Queued(backend.nextSequence(), execution);
            active.incrementAndGet();
            queue.offer(entry);
        } finally {
            dispatching.decrementAndGet();
            backend.changed(); // a driver, or a stopping worker, may be waiting for this dispatch
        }
        if (lifecycle.get() == STOPPED && queue.remove(entry)) {
            active.decrementAndGet();
            execution.cancel(stopReason + " before this task started");
        }
    }

    /**
     * Runs this worker's next queued execution on the calling thread.
     *
     * @return whether one ran; {@code false} if none is queued, another thread is running one, or the worker has finished
     * @throws IllegalStateException if called from this worker's own run, which would run two at once
     */
    public boolean runNext() {
        if (!claimed.compareAndSet(false, true)) {
            if (isCurrent()) {
                throw new IllegalStateException(this + " is running a task on this thread: it runs one at a time,"
                        + " so its next task cannot run from inside this one");
            }
            return false;
        }
        Queued next = queue.poll();
        if (next != null) {
            run(next.execution());
        }
        release();
        return next != null;
    }

    /** The dispatch order of the next execution this worker would run, or {@code Long.MAX_VALUE} if it cannot run one now. */
    long nextSequence() {
        Queued head = queue.peek();
        return head == null || claimed.get() ? Long.MAX_VALUE : head.sequence();
    }

    /** Runs an execution, with the claim held. */
    private void run(Execution<?> execution) {
        boolean callerInterrupted = Thread.interrupted(); // the driver's own, restored after the run
        ManualWorker outer = CURRENT.get();
        CURRENT.set(this);
        runner = Thread.currentThread();
        interrupt.set(RUNNING);
        running = execution; // before the lifecycle check: a forced stop either sees it or is seen
        // Once only: a VirtualMachineError may escape after the count, from a completion's settlement listener.
        AtomicBoolean counted = new AtomicBoolean();
        Runnable count = () -> {
            if (counted.compareAndSet(false, true)) {
                active.decrementAndGet();
            }
        };
        try {
            execution.begin();
            boolean stopped = lifecycle.get() == STOPPED;
            if (stopped) {
                count.run();
                execution.cancel(stopReason + " before this task started");
            }
            execution.run(context, count); // skips a complete one
        } catch (VirtualMachineError fatal) { // no thread to lose: fail it here, if it is not complete yet
            count.run();
            execution.completeExceptionally(fatal);
            throw fatal;
        } finally {
            if (!interrupt.compareAndSet(RUNNING, IDLE)) {
                while (interrupt.get() != INTERRUPTED) {
                    Thread.onSpinWait(); // a forced stop is between its CAS and its interrupt
                }
                interrupt.set(IDLE);
            }
            Thread.interrupted();
            if (callerInterrupted) {
                Thread.currentThread().interrupt();
            }
            running = null;
            runner = null;
            CURRENT.set(outer);
        }
    }

    /** Gives the claim back, then finishes the worker if it is stopping and nothing is left to run. */
    private void release() {
        claimed.set(false);
        if (lifecycle.get() != OPEN) {
            finishIfDone();
        }
        backend.changed();
    }

    /** Finishes the worker if it is stopped, or drained with nothing queued or being dispatched, and nobody runs it. */
    private void finishIfDone() {
        if (!claimed.compareAndSet(false, true)) {
            return; // its holder finishes it when it gives the claim back
        }
        // Read dispatching before the queue: a dispatch offers before it counts itself out.
        if (lifecycle.get() == STOPPED || dispatching.get() == 0 && queue.isEmpty()) {
            lifecycle.set(STOPPED);
            cancelQueued(stopReason + " before this task started");
            context.close();
            stopped.countDown();
        } else {
            claimed.set(false);
        }
    }

    private void cancelQueued(String why) {
        for (Queued queued; (queued = queue.poll()) != null; ) {
            active.decrementAndGet();
            queued.execution().cancel(why);
        }
    }

    @Override
    public boolean isCurrent() {
        return runner == Thread.currentThread();
    }

    @Override
    public void interruptRun() {
        runner.interrupt();
    }

    @Override
    public SpinBudget callerSpin() {
        return callerSpin;
    }

    @Override
    public WorkerGroup group() {
        return group;
    }

    @Override
    public void drain(String reason) {
        if (lifecycle.compareAndSet(OPEN, DRAINING)) {
            stopReason = reason;
            finishIfDone();
            backend.changed();
        }
    }

    @Override
    public void forceStop(String reason) {
        stopReason = reason;
        lifecycle.set(STOPPED);
        Execution<?> now = running;
        if (now != null) {
            now.cancel(reason + " while this task was running; it was interrupted");
            if (interrupt.compareAndSet(RUNNING, INTERRUPTING)) {
                try {
                    runner.interrupt();
                } finally { // the run must not wait for INTERRUPTED forever
                    interrupt.set(INTERRUPTED);
                }
            }
        }
        cancelQueued(reason + " before this task started");
        finishIfDone();
        backend.changed();
    }

    /**
     * Waits until the worker has stopped; while it is stopping, runs what it accepted on the calling
     * thread, so a drained worker stops without another thread driving it. A run made here is not
     * bounded by {@code timeout}: a pool's shutdown timeout cannot cut short a task on this backend.
     */
    @Override
    public boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (;;) {
            CompletableFuture<?> change = backend.nextChange();
            if (isStopped()) {
                return true;
            }
            if (lifecycle.get() != OPEN && runNext()) {
                continue;
            }
            if (!backend.awaitChange(change, deadline)) {
                return isStopped();
            }
        }
    }

    @Override
    public boolean isStopped() {
        return stopped.getCount() == 0;
    }

    @Override
    public Execution<?> running() {
        return running;
    }

    @Override
    public int activeCount() {
        return active.get();
    }

    /**
     * How many executions are queued here, not counting a running one.
     *
     * @return the number queued
     */
    public int queued() {
        return queue.size();
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "worker " + index + " (" + name + ")";
    }
}
