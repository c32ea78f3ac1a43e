package dev.moroutine.internal;

import dev.moroutine.WorkerDiedException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * A worker backed by one platform daemon thread that runs its executions one at a time, in the
 * order they were queued.
 *
 * <h2>Hand-off</h2>
 * Producers offer to a lock-free multi-producer single-consumer queue (JCTools, the
 * {@code atomic} flavour, which needs no {@code sun.misc.Unsafe}). An idle thread spins on the
 * queue for up to {@link #SPIN_NANOS} (adapted by a {@link SpinBudget}), then parks: it sets {@code parked},
 * checks the queue once more and parks. A producer that finds {@code parked} set after its offer
 * clears it and unparks the thread. Both sides write, then read, volatile state (offer/parked
 * against parked/poll), so either the thread sees the new element or the producer sees that it
 * must wake the thread.
 *
 * <h2>Idle dedicated workers</h2>
 * A dedicated worker (no pool) parks for at most the {@link IdleTimeout}. When that passes with
 * nothing to do, its thread closes its task-arg values and retires: it sets {@code parked} to
 * {@code RETIRED} (while a thread lives, only it moves {@code parked} away from 0), then checks the
 * queue once more. A producer that finds {@code RETIRED} after its offer CASes it to 0 and starts a new
 * thread; the retiring thread, if that last check finds an element, CASes it back to 0 and goes
 * on. The same write-then-read pairing as for parking means that one of them sees the other, and
 * the CAS lets exactly one of them own the queue, so a dispatch racing the retirement runs on the
 * old thread or on a new one, never on both and never nowhere. The handle (this object) stays.
 *
 * <h2>Lifecycle</h2>
 * <pre>
 * OPEN ──drain()──► DRAINING ──queue empty──► STOPPED
 *   └──────────────forceStop()─────────────────┘
 * </pre>
 * The lifecycle only moves forward. A dispatch is refused unless OPEN. A producer whose offer races
 * with the stop fences, re-reads the lifecycle and cancels its own execution when STOPPED; the
 * thread that ends the worker sets STOPPED and then drains the queue, cancelling what it finds. So
 * no accepted execution is left unfinished. {@code progress.current} is written before the worker thread
 * re-checks the lifecycle, and {@link #forceStop} reads it after setting STOPPED, so a running
 * execution is either seen (and failed) by the stopper or never started.
 *
 * <h2>Death</h2>
 * A {@link VirtualMachineError} (a stack overflow, say) escaping a moroutine fails that execution
 * with a {@link WorkerDiedException}, closes the thread's task-arg values and hands the queue to a
 * fresh thread, which goes on with the executions queued behind it. The handle (this object) stays
 * the same. Other throwables only fail their own execution.
 */
public final class ThreadWorker implements Worker {

    /** Long enough to catch a back-to-back stream of tasks, short enough that idle costs nothing. */
    private static final int SPIN_NANOS = 50_000;
    /** How long a caller of this worker spins for an answer before parking. */
    private static final int CALLER_SPIN_NANOS = 20_000;
    private static final int QUEUE_CHUNK = 256;

    private static final int OPEN = 0;
    private static final int DRAINING = 1;
    private static final int STOPPED = 2;

    /** {@code parked} of a dedicated worker whose thread ended idle; the next dispatch starts one. */
    private static final int RETIRED = 2;

    private static final VarHandle LIFECYCLE;
    private static final VarHandle PARKED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LIFECYCLE = lookup.findVarHandle(ThreadWorker.class, "lifecycle", int.class);
            PARKED = lookup.findVarHandle(ThreadWorker.class, "parked", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MpscUnboundedAtomicArrayQueue<Execution<?>> queue = new MpscUnboundedAtomicArrayQueue<>(QUEUE_CHUNK);
    private final String name;
    private final int index;
    private final WorkerPool pool;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final WorkerProgress progress = new WorkerProgress();
    private final Runnable markTaken = progress::markTaken;
    private final SpinBudget idleSpin = new SpinBudget(SPIN_NANOS);
    private final SpinBudget callerSpin = new SpinBudget(CALLER_SPIN_NANOS);

    private volatile int lifecycle = OPEN;
    private volatile int parked;
    private volatile Thread thread;
    private volatile String stopReason = "worker stopped";
    private int generation;

    ThreadWorker(String name, int index, WorkerPool pool) {
        this.name = name;
        this.index = index;
        this.pool = pool;
    }

    void start() {
        int born = generation++;
        Thread started = Thread.ofPlatform()
                .name(born == 0 ? name : name + "#" + born)
                .daemon(true)
                .unstarted(this::loop);
        thread = started;
        started.start();
    }

    WorkerPool pool() {
        return pool;
    }

    @Override
    public void dispatch(Execution<?> execution) {
        if (lifecycle != OPEN) {
            throw new RejectedExecutionException(stopReason + "; " + execution.call() + " was not queued");
        }
        execution.sentTo(this);
        queue.offer(execution);
        // The element store is a release store; without a full fence the lifecycle read below could
        // be satisfied before it is visible, and a forceStop() that misses the element would not be
        // seen here either.
        VarHandle.fullFence();
        if (lifecycle == STOPPED) {
            execution.cancel(stopReason + " before this task started");
            return;
        }
        int sleep = parked;
        if (sleep == 1 && PARKED.compareAndSet(this, 1, 0)) {
            LockSupport.unpark(thread);
        } else if (sleep == RETIRED && PARKED.compareAndSet(this, RETIRED, 0)) {
            restart();
        }
    }

    /** Starts a thread for a retired dedicated worker; if that fails, the next dispatch tries again. */
    private void restart() {
        try {
            start();
        } catch (Throwable e) { // OutOfMemoryError "unable to create native thread", say
            parked = RETIRED;
            throw e;
        }
    }

    @Override
    public int activeCount() {
        long done = progress.completed();
        return (int) Math.max(0, queue.currentProducerIndex() - done);
    }

    @Override
    public Thread thread() {
        return thread;
    }

    @Override
    public int index() {
        return index;
    }

    /** Graceful stop: run what is queued, then end. Does nothing once stopping or stopped. */
    void drain(String reason) {
        if (LIFECYCLE.compareAndSet(this, OPEN, DRAINING)) {
            stopReason = reason;
            LockSupport.unpark(thread);
        }
    }

    /** Immediate stop: fail what is queued and running, and interrupt the thread. */
    void forceStop(String reason) {
        stopReason = reason;
        lifecycle = STOPPED;
        Execution<?> running = progress.current;
        if (running != null) {
            running.cancel(reason + " while this task was running; it was interrupted");
        }
        // Read-only and weakly consistent: the thread, if it comes back, cancels whatever this misses.
        for (Execution<?> queued : queue) {
            queued.cancel(reason + " before this task started");
        }
        Thread t = thread;
        t.interrupt();
        LockSupport.unpark(t);
    }

    boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
        return stopped.await(timeout, unit);
    }

    /** The adaptive spin of callers waiting for this worker's answers. */
    SpinBudget callerSpin() {
        return callerSpin;
    }

    boolean isOwnThread(Thread candidate) {
        return candidate == thread;
    }

    private void loop() {
        Death death = null;
        boolean replaced = false;
        try {
            int highWaterMark = pool != null ? pool.highWaterMark() : Streams.DEFAULT_HIGH_WATER_MARK;
        try (WorkerContext context = new WorkerContext(name, highWaterMark)) {
                death = work(context);
                Thread.interrupted(); // values are closed normally even after a forced stop
            }
        } finally {
            // Whatever escaped, the queue gets a new thread or is drained: nothing is left unfinished.
            if (death == RETIREMENT) {
                death = null; // the queue passes to the thread that the next dispatch starts
            } else if (death != null && lifecycle != STOPPED) {
                start();
                replaced = true;
            } else {
                finish();
            }
        }
        if (death == null) {
            return;
        }
        // Reported only now: whoever sees the failure also sees this thread's values closed.
        death.execution().completeExceptionally(new WorkerDiedException(Thread.currentThread().getName() + " died running "
                + death.execution().call() + ": " + death.error()
                + (replaced ? "; a new thread replaced it" : "; the worker was stopping, so it was not replaced"),
                death.error()));
    }

    private record Death(Execution<?> execution, VirtualMachineError error) {}

    /** What {@link #work} returns when an idle dedicated thread retired: no death, and nothing to finish. */
    private static final Death RETIREMENT = new Death(null, null);

    /** Runs executions until stopped; returns what killed this thread, if something did. */
    private Death work(WorkerContext context) {
        for (;;) {
            Execution<?> execution = queue.poll();
            if (execution == null) {
                if (lifecycle != OPEN) {
                    return null;
                }
                long idleSince = pool == null ? System.nanoTime() : 0; // only dedicated workers time out
                execution = idle();
                if (execution == null) {
                    if (pool == null && System.nanoTime() - idleSince >= IdleTimeout.nanos() && retire(context)) {
                        return RETIREMENT;
                    }
                    continue;
                }
            }
            progress.current = execution;
            long before = progress.taken;
            try {
                if (lifecycle == STOPPED) {
                    progress.markTaken();
                    execution.cancel(stopReason + " before this task started");
                } else {
                    execution.run(context, markTaken);
                }
            } catch (VirtualMachineError error) {
                if (progress.taken == before) {
                    progress.markTaken();
                }
                return new Death(execution, error);
            } finally {
                progress.clearCurrent();
                Thread.interrupted(); // an interrupt aimed at this task must not reach the next one
            }
        }
    }

    private Execution<?> idle() {
        long budget = idleSpin.next();
        long start = System.nanoTime();
        Execution<?> execution;
        for (int spins = 1; (execution = queue.poll()) == null; spins++) {
            if (lifecycle != OPEN || !Waiting.pause(start, spins, budget)) {
                break;
            }
        }
        idleSpin.ended(start, budget, execution != null);
        if (execution != null || lifecycle != OPEN) {
            return execution;
        }
        // A stray interrupt would make park() return at once, turning the idle worker into a spinner.
        Thread.interrupted();
        parked = 1;
        execution = queue.poll();
        if (execution == null && lifecycle == OPEN) {
            if (pool != null) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, IdleTimeout.nanos());
            }
        }
        parked = 0;
        return execution;
    }

    /**
     * Ends this idle dedicated thread unless work arrives (see the class overview); its values are
     * closed first, while no other thread can own the queue.
     *
     * @return {@code true} if this thread must end now, without touching the queue again
     */
    private boolean retire(WorkerContext context) {
        if (!queue.isEmpty()) {
            return false;
        }
        context.close(); // empties the context, which stays usable if this thread goes on
        parked = RETIRED;
        return queue.isEmpty() || !PARKED.compareAndSet(this, RETIRED, 0);
    }

    private void finish() {
        lifecycle = STOPPED;
        Execution<?> execution;
        while ((execution = queue.poll()) != null) {
            progress.markTaken();
            execution.cancel(stopReason + " before this task started");
        }
        stopped.countDown();
    }

    @Override
    public String toString() {
        return "worker " + index + " (" + name + ")";
    }
}
