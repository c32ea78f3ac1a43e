package dev.moroutine.internal.dispatch;

import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * A worker backed by one platform daemon thread that runs its executions one at a time, in the
 * order they were queued.
 *
 * <h2>Hand-off</h2>
 * Producers offer to a lock-free multi-producer single-consumer queue (JCTools, the
 * {@code atomic} flavour, which needs no {@code sun.misc.Unsafe}). An idle thread spins on the
 * queue for its {@link SpinBudget} (up to {@link #SPIN_NANOS}, adapted; or the one it was made with:
 * {@link #telling}), then parks: it sets {@code parked},
 * checks the queue once more and parks. Until then it looks at its next slot only
 * ({@code relaxedPoll}), as it runs its tasks and as it spins, not at the producers' index, which
 * every offer CASes: a thread reading it whenever it finds the queue empty took its cache line from
 * the producer about once a task when tasks came one by one (pipelined tasks on one worker: 3.4 M/s
 * against 4.9 without that read, paired JMH runs). So it may miss an element whose slot is claimed
 * but not yet written, until its next look; the check before parking is a full {@code poll}, which
 * does read the index. A producer that finds {@code parked} set after its offer
 * clears it and unparks the thread. Both sides write, then read, volatile state (offer/parked
 * against parked/poll), so either the thread sees the new element or the producer sees that it
 * must wake the thread. A dispatch made in {@link DeferredWakes#defer} leaves that read of
 * {@code parked} (and the unpark) to the batch's {@link DeferredWakes#wakeAll()}: read later, it
 * sees the park as surely. A worker made with a {@link Feed} polls it at each step of its spin,
 * which may dispatch to this very worker (a worker JVM's thread reading its requests), and tells
 * it when the spin ends, before the park's hand-shake. In a pool of more workers than its
 * {@link SpinGate} lets spin (one fewer than the processors), an idle thread that finds as many
 * siblings spinning waits yielding its core at each step instead, for a fixed while, then parks the
 * same way: so a thread submitting a batch to a pool as large as the machine keeps a core.
 *
 * <h2>Sharing work</h2>
 * In a pool whose balancer only spreads load ({@link WorkerGroup#sharesWork}), an unassigned
 * execution that binds no endpoint is <em>shared</em>: besides the queue, its dispatch puts it in
 * {@code shared}, a small array, at the slot of its admission number (a newer one overwrites an
 * older one, which then simply stays with this worker). An idle thread of a pool that shares work
 * looks at its siblings when it runs out of work, every {@link #SPINS_PER_LOOK} spins while it
 * waits, and once more before it parks, each time unless it looked less than
 * {@link #LOOK_INTERVAL_NANOS} before. From a sibling that is {@linkplain #behind behind} (it had
 * unfinished work at the previous look and, at the pace it kept since, would take longer than that
 * interval to finish what it has now: it is in a long task, its thread is not running, or it has
 * many tasks of some microseconds queued), it takes the newest shared execution that waits there;
 * if the newest slot holds one already claimed (by the owner, or another taker), it gives up until
 * its next look. A sibling whose own thread finished nothing since the previous look (it is stuck;
 * what siblings took from it is no progress of its thread) goes before the ones that are only slow,
 * which would otherwise keep the taker busy while a task waits behind a stuck one; those are tried
 * in order after it, each until one gives a task. The owner and the taker both
 * {@linkplain Execution#claim claim} a shared execution before they run it, so exactly one of them
 * does; the owner skips one that a sibling claimed. A taken execution runs on the taker as its own
 * would, except that it stays counted at its owner: the taker adds it to the owner's {@code
 * takenBySiblings} before it completes it, so that whoever sees it complete sees the owner's {@link
 * #activeCount()} without it. It names the taker as its worker, so a stopper interrupts the thread
 * that runs it. A stopping worker takes nothing from its siblings (they may still take from it); a
 * forced stop cancels what its queue holds, including an execution a sibling runs (which that
 * sibling's own stop interrupts). A thread that parks while a sibling has unfinished work (any: an
 * assigned long task too) parks for {@link #LOOK_AGAIN_NANOS} only, then looks again. With every
 * sibling idle it parks until woken (an idle pool costs nothing), as {@link #PARKED_ALL_IDLE}: a
 * shared dispatch to a sibling whose thread is awake (it may be in a long task), or that has an
 * earlier dispatch still queued (its wake deferred, {@link DeferredWakes}), then wakes it too, as
 * {@link #WOKEN_TO_LOOK}: one that has work of its own by the time it leaves its park passes the
 * wake on to another sibling, and so does one that runs any task before it parks untimed again
 * while a shared task waits unclaimed at a sibling (a task sent to an idle sibling wakes that
 * sibling only, so the woken thread may take that task, not the one it was woken for; one that took
 * the task it was woken for, or whose task its owner ran, finds none and wakes nobody).
 * The same pairing as for parking holds: the thread sets {@code parked}, then reads its siblings'
 * queues; the dispatch offers, fences, then reads {@code parked}. In a pool that shares nothing its
 * threads never look and park as before. The array holds at most the last {@link #SHARED_SLOTS}
 * shared executions sent to this worker: newer ones overwrite them, and before each park the thread
 * lets go of those already claimed, so a busy worker may keep that many finished results reachable,
 * an idle one none.
 *
 * <h2>Batches in order</h2>
 * The shared executions of one {@code runAll} form a {@link Batch}, exposed one by one as their
 * workers admit them. A thread whose queue's head is one of them, exposed and unclaimed, runs the
 * batch's oldest unclaimed execution instead, from its own queue or a sibling's, claimed as a
 * taken execution is (and counted at its owner as one); the head stays in the queue (the thread
 * looks at it, {@code relaxedPeek}, and takes it off only when the batch hands out that one), so a
 * forced stop cancels it, a drain runs it, and the batch or a sibling can still hand it to another
 * thread. A thread that took any execution of a batch takes the batch's next the same way once its
 * queue is empty, before it waits: so a thread that is free finds an execution left at the head of a
 * queue whose thread is busy with an older one, even one that waits for it. So a batch runs in the
 * order it was sent, as if the pool's threads pulled it from one queue: a thread that is free early
 * takes the next task of the batch, not the next one that was placed on it, and a long task near
 * the end starts as soon as a thread is free (a batch of 64 tests of mixed cost on 2 threads: the
 * threads waited 62–99 µs at the end of each batch, against 6–40 for a ForkJoinPool, and 7–34 this
 * way; {@code BatchTimeline} in the bench). One that is not exposed yet (its dispatch has not
 * returned to the batch's sender) runs as any other. A stopping worker takes nothing from a batch.
 * The thread looks at its head only while its pool has a batch under way ({@link BatchesUnderWay},
 * counted from before a batch's first dispatch to after its last result); otherwise it takes the
 * head at once, as a thread that read no batch just as one started does: such an execution runs
 * as one not exposed yet does, claimed first. An idle thread, at each look at its siblings, first
 * takes the oldest unclaimed execution of any batch under way: so one left behind an older execution
 * of its batch (even one that waits for it) on a busy sibling runs on a free thread that took nothing
 * of the batch, though the sibling's shared slots, which newer dispatches take, no longer hold it.
 *
 * <h2>Idle dedicated workers</h2>
 * A dedicated worker (no pool) parks for at most the {@link IdleTimeout}. When that passes with
 * nothing to do, its thread closes its task-arg values and retires: it sets {@code parked} to
 * {@code RETIRED} (while a thread lives, only it moves {@code parked} away from 0), then checks the
 * queue once more. A producer that finds {@code RETIRED} after its offer CASes it to 0 and starts a new
 * thread; the retiring thread, if that last check finds an element, CASes it back to 0 and goes
 * on. The same write-then-read pairing as for parking means that one of them sees the other, and
 * the CAS lets exactly one of them own the queue, so a dispatch racing the retirement runs on the
 * old thread or on a new one, never on both and never nowhere. A producer whose new thread cannot
 * start owns the queue without a thread: it fails what is queued and retires the worker again,
 * the same way, so a dispatch racing it is failed or starts a thread itself. The handle (this
 * object) stays.
 * Dedicated workers are never drained or stopped, so retirement never meets the lifecycle below.
 *
 * <h2>Lifecycle</h2>
 * <pre>
 * OPEN ──drain()──► DRAINING ──every admitted execution taken──► STOPPED
 *   └──────────────forceStop(), or no thread to run the queue─────┘
 * </pre>
 * The lifecycle only moves forward. A dispatch first counts itself in {@code admitted} (a volatile
 * read-modify-write), then reads the lifecycle: unless OPEN, it takes itself out again (counts
 * itself in {@code givenBack}) and is refused, before offering anything; so does one whose
 * admission fails. The stopping side writes the lifecycle, then reads {@code admitted}; both are
 * volatile, so either the dispatch sees the stop or the thread counts it. The thread stops taking
 * only when the lifecycle is not OPEN and its queue's consumer index has reached {@code admitted}
 * less {@code givenBack}: a dispatch admitted just before a graceful {@link #drain} is waited for
 * and run, never cancelled, and one refused is never queued. (The waiting thread parks like an idle
 * one; a dispatch that takes itself out wakes it as an offer does.) A dispatch's admission number
 * is never handed out again, so it names the dispatch's slot among the shared executions.
 *
 * <p>A forced stop cancels instead of running. A producer whose offer races with it fences, re-reads
 * the lifecycle and cancels its own execution when STOPPED, so that it fails at once even if the
 * thread is stuck in a task that ignores interrupts; after a graceful stop that cancel finds the
 * execution already complete. The thread that ends the worker sets STOPPED and then takes what is
 * left, cancelling it. So no accepted execution is left unfinished. {@code progress.current} is
 * written before the worker thread re-checks the lifecycle, with a full fence between (the one with
 * which the execution is marked RUNNING, {@link Execution#begin}), and {@link #forceStop} reads it after
 * setting STOPPED, so a running execution is either seen (and failed) by the stopper or never started.
 *
 * <p>A forced stop also interrupts the thread, whatever it runs, but only while it runs tasks: the
 * thread that leaves its loop moves {@code exit} from WORKING (or INTERRUPTED) to EXITING before
 * it closes its task-arg values, and a stopper interrupts only after moving WORKING (or
 * INTERRUPTED, when it is not the first) to INTERRUPTING, then sets INTERRUPTED. A leaving thread
 * that finds a stopper at work waits for it, then clears the interrupt, so its values are closed
 * on a thread that is not interrupted.
 *
 * <h2>Death</h2>
 * A {@link VirtualMachineError} (a stack overflow, say) escaping a moroutine ends the thread: it
 * closes its task-arg values and hands the queue to a fresh thread, which first fails that execution
 * with a {@link WorkerDiedException} and then goes on with the executions queued behind it. So
 * whoever sees the failure also sees the dead thread's values closed, and the worker cannot be seen
 * stopped before the failure is reported. The handle (this object) stays the same. When the worker is
 * stopping, or no thread can be started (an {@link OutOfMemoryError} from {@link Thread#start}), the
 * dying thread reports the failure itself and then stops the worker, cancelling the queue with the
 * reason; a dedicated worker, which nobody could replace, is retired instead, as when a restart
 * fails, so that the next call tries again. Other throwables only fail their own execution.
 */
public final class ThreadWorker implements Worker {

    /** Long enough to catch a back-to-back stream of tasks, short enough that idle costs nothing. */
    private static final int SPIN_NANOS = 50_000;
    /** How long a caller of this worker spins for an answer before parking. */
    private static final int CALLER_SPIN_NANOS = 20_000;
    private static final int QUEUE_CHUNK = 256;
    /** How many of the last shared executions dispatched here an idle sibling can find: a power of two. */
    private static final int SHARED_SLOTS = 64;
    /** How often (in spins) an idle thread asks whether it is time to look for shared work at its siblings. */
    private static final int SPINS_PER_LOOK = 32;
    /**
     * The least time between two looks of an idle thread at its siblings. A look reads lines that
     * the submitting thread and the siblings write at every task (a queue's producer index, a
     * sibling's finished count), and a look every 32 spins, about a microsecond, made a batch of
     * 100,000 noop tasks to 2 workers on 2 cores 4.3 M tasks/s against 5.9 with 20 µs between looks
     * (10 against 13 when the cores were quieter; JMH {@code ParallelBenchmark}, paired runs). It is also
     * the least work a sibling must have left, at its pace, for an idle thread to take from it.
     */
    private static final long LOOK_INTERVAL_NANOS = 20_000;
    /** How long an idle thread parks while a sibling has work, before it looks at it again. */
    private static final long LOOK_AGAIN_NANOS = 1_000_000;
    /** How an idle thread that its pool's {@link SpinGate} keeps from spinning waits before it parks. */
    private static final SpinBudget GATED_WAIT = SpinBudget.yielding(50_000);

    private static final int OPEN = 0;
    private static final int DRAINING = 1;
    private static final int STOPPED = 2;

    /** {@code parked} of a dedicated worker whose thread ended idle; the next dispatch starts one. */
    private static final int RETIRED = 2;
    /**
     * {@code parked} of a pool's thread that found no sibling with work at its last look before
     * parking, or did not look because its pool shared nothing yet (its siblings still starting, or
     * added later); it may still watch, for a sibling that got work just after. A shared dispatch to a
     * sibling that is awake wakes it too (see "Sharing work"), as a dispatch to this worker does.
     */
    private static final int PARKED_ALL_IDLE = 3;
    /**
     * {@code parked} of a thread that a sibling's dispatch woke from {@link #PARKED_ALL_IDLE} to look
     * at its siblings: if it has work of its own when it leaves its park, it will not look soon, so it
     * passes the wake on to another sibling (see {@link #idle()}).
     */
    private static final int WOKEN_TO_LOOK = 4;

    private static final int WORKING = 0;
    private static final int INTERRUPTING = 1;
    private static final int INTERRUPTED = 2;
    private static final int EXITING = 3;

    private static final VarHandle LIFECYCLE;
    private static final VarHandle PARKED;
    private static final VarHandle EXIT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LIFECYCLE = lookup.findVarHandle(ThreadWorker.class, "lifecycle", int.class);
            PARKED = lookup.findVarHandle(ThreadWorker.class, "parked", int.class);
            EXIT = lookup.findVarHandle(ThreadWorker.class, "exit", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MpscUnboundedAtomicArrayQueue<Execution<?>> queue = new MpscUnboundedAtomicArrayQueue<>(QUEUE_CHUNK);
    private final String name;
    private final int index;
    private final WorkerGroup group;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final WorkerProgress progress = new WorkerProgress();
    private final Runnable markTaken = progress::markTaken;
    private final SpinBudget idleSpin;
    private final SpinBudget callerSpin = new SpinBudget(CALLER_SPIN_NANOS);
    private final Consumer<Thread> starter;
    /** Told by the worker's thread each time it leaves an execution it took; null for none. */
    private final Leaving leaving;
    /** Polled by the worker's thread while it waits; null for none. */
    private final Feed feed;
    /**
     * The last shared executions dispatched here, each in the slot of its admission number, where
     * idle siblings find them; null for a worker without a pool or with a {@code leaving} hook.
     */
    private final AtomicReferenceArray<Execution<?>> shared;
    /** The sibling whose execution {@link #idle()} or {@link #takeInOrder} returned, else null; the worker thread's own. */
    private ThreadWorker fromSibling;
    /** The batch of the last execution this thread took: it takes the batch's next before it waits; its own. */
    private Batch inBatch;
    /** Its pool's batches under way: it keeps a batch's order only while there is one; null for a worker that shares nothing. */
    private final BatchesUnderWay batches;
    /** Whether {@link #nextInOrder} or {@link #takeFromBatches} claimed the execution returned; the worker thread's own. */
    private boolean claimedInOrder;
    /**
     * The sibling whose execution the thread runs now; the worker thread's own, and read only while
     * it runs one (it may still name the last one after). The thread writes these fields only when
     * it runs a sibling's execution: written at every task, they took the one-worker pipelined
     * shape from 3.3–6.3 to 2.0–3.2 M tasks/s, a worker that shares nothing included.
     */
    private ThreadWorker runningFor;
    /** Whether that execution is counted at its sibling yet; the worker thread's own, read as {@code runningFor}. */
    private boolean countedThere;
    /** Counts the execution this thread runs for a sibling there: its {@code beforeCompletion}. */
    private final Runnable countThere = () -> {
        runningFor.takenBySiblings.getAndAdd(1L);
        countedThere = true;
    };
    /** What this thread saw of each sibling at its last look, by the sibling's index (see {@link #takeFromSibling}); its own. */
    private long[] lastLook = new long[0];
    /** How many tasks each sibling's own thread had finished at this thread's last look (takes by others left out); its own. */
    private long[] lastRan = new long[0];
    /** Which siblings this thread's last look judged behind but not stuck, by index; its own. */
    private boolean[] lagging = new boolean[0];
    /** Whether a sibling had unfinished work at this thread's last look; its own. */
    private boolean siblingBusy;
    /**
     * Woken to look at its siblings ({@link #WOKEN_TO_LOOK}) with no work of its own then, this thread
     * has neither parked untimed nor run a task since; its own. The first task it runs passes the
     * wake on while a shared task waits unclaimed at a sibling: see {@link #work}.
     */
    private boolean owesLook;
    /** When this thread last looked at its siblings ({@link System#nanoTime()}); its own. */
    private long lastLookAt = System.nanoTime() - LOOK_INTERVAL_NANOS;
    /** When this thread last looked at its siblings, as {@link #lastLookAt} before a wake set that back; its own. */
    private long lookedAt;

    private volatile int lifecycle = OPEN;
    private volatile int parked;
    /**
     * Every dispatch, even one refused or whose admission failed (counted in {@code givenBack} too);
     * on a line of its own, because every dispatch bumps it while the worker reads the lifecycle.
     */
    private final PaddedCounter admitted = new PaddedCounter();
    /**
     * Dispatches counted in {@code admitted} that were refused or whose admission failed: they never
     * offer. Counted apart, not taken back from {@code admitted}, so that no admission number (a
     * shared execution's slot) is used twice; rare, so on no line of its own.
     */
    private final AtomicLong givenBack = new AtomicLong();
    /** Executions of this worker's queue that siblings ran, counted before each completes (see {@link #activeCount()}). */
    private final PaddedCounter takenBySiblings = new PaddedCounter();
    private volatile Thread thread;
    /** The current thread's hand-shake with a forced stop's interrupt: see the class comment. */
    private volatile int exit = WORKING;
    private volatile String stopReason = "worker stopped";
    private int generation;

    /**
     * Makes a worker; {@link #start()} starts its thread.
     *
     * @param name its thread's name
     * @param index its position in its pool
     * @param group its pool, or null for a moroutine's dedicated worker (which retires when idle)
     */
    public ThreadWorker(String name, int index, WorkerGroup group) {
        this(name, index, group, Thread::start, new SpinBudget(SPIN_NANOS), null, null);
    }

    /**
     * Makes a worker that tells {@code leaving} each time its thread leaves an execution it took.
     * A backend that answers for its tasks elsewhere learns so when the run of an execution
     * completed from outside (cancelled, say) has really ended, which its completion does not say.
     *
     * @param name its thread's name
     * @param index its position in its pool
     * @param group its pool
     * @param idleSpin how its idle thread waits before it parks (a backend whose tasks come from
     *     another process passes a {@linkplain SpinBudget#yielding yielding} one)
     * @param leaving told on the worker's thread, before it takes the next execution
     * @param feed what its thread does itself while it waits for executions; null for nothing
     * @return the worker; {@link #start()} starts its thread
     */
    public static ThreadWorker telling(String name, int index, WorkerGroup group, SpinBudget idleSpin, Leaving leaving,
            Feed feed) {
        return new ThreadWorker(name, index, group, Thread::start, idleSpin, leaving, feed);
    }

    /** A worker whose threads are started by {@code starter}: a test's way to see {@link Thread#start} fail. */
    ThreadWorker(String name, int index, WorkerGroup group, Consumer<Thread> starter) {
        this(name, index, group, starter, new SpinBudget(SPIN_NANOS), null, null);
    }

    private ThreadWorker(String name, int index, WorkerGroup group, Consumer<Thread> starter, SpinBudget idleSpin,
            Leaving leaving, Feed feed) {
        this.name = name;
        this.feed = feed;
        this.idleSpin = idleSpin;
        this.index = index;
        this.group = group;
        this.starter = starter;
        this.leaving = leaving;
        this.shared = group != null && leaving == null ? new AtomicReferenceArray<>(SHARED_SLOTS) : null;
        this.batches = shared != null ? group.batches() : null;
    }

    /** What a worker's thread tells when it leaves an execution. */
    @FunctionalInterface
    public interface Leaving {
        /**
         * The worker's thread has left {@code execution}: its function returned or threw (its death
         * too), or it was skipped, complete already. Not told for the executions a stopping worker
         * cancels without taking them. Must not throw.
         *
         * @param execution the execution it took
         */
        void left(Execution<?> execution);
    }

    /** Starts the worker's thread. */
    public void start() {
        starter.accept(newThread(null));
    }

    /** The worker's next thread; it reports {@code predecessor}'s death (if any) before taking the queue. */
    private Thread newThread(Death predecessor) {
        int born = generation++;
        Thread created = Thread.ofPlatform()
                .name(born == 0 ? name : name + "#" + born)
                .daemon(true)
                .unstarted(() -> loop(predecessor));
        thread = created; // before it starts: a stopper must be able to wake it from its first park
        exit = WORKING; // after the write of thread: a stopper that moves it on interrupts this one
        return created;
    }

    @Override
    public WorkerGroup group() {
        return group;
    }

    @Override
    public void dispatch(Execution<?> execution) {
        execution.sentTo(this); // may refuse the execution: before it is admitted, so it is never awaited
        long number = admitted.getAndAdd(1L);
        if (lifecycle != OPEN) {
            givenBack.getAndIncrement();
            wake(); // a stopping thread may be waiting for this dispatch to offer
            throw new RejectedExecutionException(stopReason + "; " + execution.invocation() + " was not queued");
        }
        try {
            execution.admitted(); // attaches its channel ends (starting a channel's source may fail)
        } catch (RuntimeException | Error failed) {
            givenBack.getAndIncrement(); // never offered: a stopping thread must not wait for it
            wake();
            throw failed;
        }
        boolean share = shared != null && group.sharesWork(execution.invocation()) && execution.allowStealing();
        queue.offer(execution);
        if (share) {
            shared.setRelease((int) number & (SHARED_SLOTS - 1), execution);
        }
        // The element store is a release store; without a full fence the lifecycle read below could
        // be satisfied before it is visible, and a forceStop() that misses the element would not be
        // seen here either.
        VarHandle.fullFence();
        if (lifecycle == STOPPED) {
            execution.cancel(stopReason + " before this task started");
        }
        // This thread may be in a long task, or will be in one queued before this one (its wake deferred to the end of
        // a batch, see DeferredWakes, the worker still parks with it queued): a sibling should look. Queued before, not
        // admitted before: another dispatch may take the next admission number and offer first. And parked read again
        // after the queue: a thread woken meanwhile writes 0 there before it takes the task ahead, so a look that finds
        // that task taken finds the thread awake.
        boolean busy = share && (parked == 0 || queue.currentProducerIndex() - queue.currentConsumerIndex() > 1 || parked == 0);
        if (!DeferredWakes.deferred(this)) {
            wake(); // even when cancelled: a stopping thread may be waiting to take it
        }
        if (busy) {
            wakeSiblingParkedAllIdle();
        }
    }

    void wake() {
        int sleep = parked;
        if ((sleep == 1 || sleep == PARKED_ALL_IDLE) && PARKED.compareAndSet(this, sleep, 0)) {
            LockSupport.unpark(thread);
        } else if (sleep == RETIRED && PARKED.compareAndSet(this, RETIRED, 0)) {
            restart();
        }
    }

    /**
     * Starts a thread for a retired dedicated worker, whose queue this caller owns (it won the CAS
     * from RETIRED); if that fails, it fails what is queued and retires the worker again, so the next
     * dispatch tries again.
     */
    private void restart() {
        try {
            start();
        } catch (Throwable e) { // OutOfMemoryError "unable to create native thread", say
            retireWithoutThread(e);
            throw e;
        }
    }

    /**
     * Fails what is queued and leaves the dedicated worker retired, so that the next dispatch tries
     * to start a thread again; by the queue's owner, when no thread could be started.
     */
    private void retireWithoutThread(Throwable cannotStart) {
        for (;;) {
            // Only what was queued when the start failed fails: a call made after that (after its
            // caller saw the failure, say) gets a start of its own below.
            String why = name + " could not start a thread (" + cannotStart + "), so this task did not run;"
                    + " the next call tries again";
            long failedUpTo = queue.currentProducerIndex();
            Execution<?> execution;
            while (queue.currentConsumerIndex() < failedUpTo && (execution = queue.poll()) != null) {
                progress.markTaken();
                execution.cancel(why);
            }
            parked = RETIRED;
            if (queue.isEmpty() || !PARKED.compareAndSet(this, RETIRED, 0)) { // as in retire()
                return;
            }
            try {
                start();
                return;
            } catch (Throwable again) { // still no thread: fail what came meanwhile too, and retire
                cannotStart = again;
            }
        }
    }

    @Override
    public int activeCount() {
        long done = progress.completed() + takenBySiblings.get();
        return (int) Math.max(0, queue.currentProducerIndex() - done);
    }

    /**
     * The platform thread that runs this worker's tasks now; a dead thread's replacement is another.
     *
     * @return the thread
     */
    public Thread thread() {
        return thread;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void interruptRun() {
        thread.interrupt();
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public void drain(String reason) {
        if (LIFECYCLE.compareAndSet(this, OPEN, DRAINING)) {
            stopReason = reason;
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void forceStop(String reason) {
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
        int state = exit;
        if (state != INTERRUPTING && state != EXITING && EXIT.compareAndSet(this, state, INTERRUPTING)) {
            thread.interrupt();
            exit = INTERRUPTED;
        }
        LockSupport.unpark(thread);
    }

    @Override
    public boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
        return stopped.await(timeout, unit);
    }

    @Override
    public boolean isStopped() {
        return stopped.getCount() == 0;
    }

    @Override
    public Execution<?> running() {
        return progress.current;
    }

    @Override
    public SpinBudget callerSpin() {
        return callerSpin;
    }

    private void loop(Death predecessor) {
        Death death = null;
        try {
            if (predecessor != null) {
                predecessor.report("a new thread replaced it", null);
            }
            try (WorkerContext context = new WorkerContext(name)) {
                death = work(context);
                // Values are closed normally even after a forced stop: see the class comment.
                for (int state; (state = exit) == INTERRUPTING || !EXIT.compareAndSet(this, state, EXITING); ) {
                    Thread.onSpinWait(); // a stopper is between its CAS and its interrupt
                }
                Thread.interrupted();
            }
        } finally {
            // Whatever escaped, the queue gets a new thread or is drained: nothing is left unfinished.
            // A retired thread's queue passes to the thread that the next dispatch starts.
            if (death != RETIREMENT && (death == null || !replace(death))) {
                finish();
            }
        }
    }

    /** What killed a thread; reported once its task-arg values are closed. */
    private record Death(Execution<?> execution, VirtualMachineError error, String threadName) {
        void report(String aftermath, Throwable alsoFailed) {
            WorkerDiedException died = new WorkerDiedException(threadName + " died running " + execution.invocation() + ": "
                    + error + "; " + aftermath, error);
            if (alsoFailed != null) {
                died.addSuppressed(alsoFailed);
            }
            execution.completeExceptionally(died);
        }
    }

    /** Hands the queue to a new thread, which reports the death, or retires it; {@code false} when the worker must stop instead. */
    private boolean replace(Death death) {
        if (lifecycle == STOPPED) {
            death.report("the worker was stopping, so it was not replaced", null);
            return false;
        }
        try {
            starter.accept(newThread(death));
            return true;
        } catch (Throwable cannotStart) { // typically OutOfMemoryError: unable to create native thread
            if (group == null) { // a dedicated worker cannot be replaced by its user: it must not stop for good
                death.report("no new thread could be started to replace it (" + cannotStart + "); the next call tries again",
                        cannotStart);
                retireWithoutThread(cannotStart);
                return true;
            }
            stopReason = name + " stopped: its thread died and no new thread could be started (" + cannotStart + ")";
            lifecycle = STOPPED;
            death.report("no new thread could be started to replace it (" + cannotStart + "), so the worker stopped",
                    cannotStart);
            return false;
        }
    }

    /** What an execution that {@link #work} already counted runs before its completion: nothing. */
    private static final Runnable COUNTED = () -> { };

    /** What {@link #work} returns when an idle dedicated thread retired: no death, and nothing to finish. */
    private static final Death RETIREMENT = new Death(null, null, null);

    /**
     * Runs executions until stopped; returns what killed this thread, if something did, or
     * {@link #RETIREMENT} when an idle dedicated thread ended.
     */
    private Death work(WorkerContext context) {
        for (;;) {
            // While a batch is under way the head is looked at before it is taken (see nextInOrder); otherwise it is taken at
            // once, as before batches were ordered: looking at every head, in this loop, took tasks sent one by one, 64 in
            // flight, from 5.1 to 4.4 M tasks/s (medians of 12 paired runs; 5.0 this way).
            Execution<?> execution = batches != null && batches.any() ? nextInOrder() : queue.relaxedPoll();
            if (execution == null) {
                if (inBatch != null) { // none under way, or all of it handed out (see nextInOrder): an idle thread keeps no batch
                    inBatch = null;
                }
                if (!awaitingWork()) {
                    return null;
                }
                long idleSince = group == null ? System.nanoTime() : 0; // only dedicated workers time out
                execution = idle();
                if (execution == null) {
                    if (group == null && System.nanoTime() - idleSince >= IdleTimeout.nanos() && retire(context)) {
                        return RETIREMENT;
                    }
                    continue;
                }
            }
            boolean claimed = claimedInOrder; // by nextInOrder, or by idle() from a batch
            if (claimed) {
                claimedInOrder = false;
            }
            if (execution.batch() != null && shared != null) {
                inBatch = execution.batch(); // its next, once this queue is empty (the free thread must find it)
            }
            // An execution is counted where it was queued: by this thread, or by the sibling that ran it.
            ThreadWorker owner = fromSibling;
            if (owner != null) {
                fromSibling = null;
            }
            if (owner == null && !claimed && execution.stealable() && !execution.claim(this)) {
                continue; // a sibling runs it, and counts it here
            }
            if (owner != null) {
                runningFor = owner;
                countedThere = false;
            }
            if (owesLook) {
                // Woken to look at its siblings, it runs a task first: its own, or a sibling's that need not be the one it
                // was woken for (a task sent to an idle worker wakes that worker only, which may be slow to run). If a
                // shared task still waits unclaimed at a sibling, it may be that one: another sibling must look.
                owesLook = false;
                if (siblingHasUnclaimedShared()) {
                    wakeSiblingParkedAllIdle();
                }
            }
            Runnable count = owner == null ? markTaken : countThere;
            progress.publishCurrent(execution);
            long before = progress.taken;
            try {
                execution.begin(); // its fence orders the publication above before the lifecycle read: see the class comment
                boolean stopped = lifecycle == STOPPED;
                if (stopped) {
                    count.run();
                    execution.cancel(stopReason + " before this task started");
                }
                execution.run(context, stopped ? COUNTED : count); // skips a complete one
            } catch (VirtualMachineError error) {
                if (owner == null ? progress.taken == before : !countedThere) {
                    count.run();
                }
                return new Death(execution, error, Thread.currentThread().getName());
            } finally {
                progress.clearCurrent();
                Thread.interrupted(); // an interrupt aimed at this task must not reach the next one
                if (leaving != null) {
                    leaving.left(execution);
                }
            }
        }
    }

    /**
     * The next execution while a batch is under way: the batch's oldest unclaimed one, claimed (then
     * {@link #claimedInOrder} is set), if the queue's head belongs to a batch or the queue is empty
     * after an execution of one; else the head. Looked at, not taken: an execution of a batch stays at
     * the head of the queue while the thread runs an older one of the batch instead (see "Batches in
     * order"), where a forced stop, a drain and siblings find it.
     */
    private Execution<?> nextInOrder() {
        Execution<?> head = queue.relaxedPeek();
        if (head != null ? inOrder(head) : inBatch != null && lifecycle == OPEN) {
            Execution<?> first = takeInOrder(head != null ? head.batch() : inBatch);
            if (first != null) {
                if (first == head) {
                    queue.relaxedPoll(); // the head, this thread being the queue's one consumer
                }
                claimedInOrder = true;
                return first;
            }
            inBatch = null; // all handed out (the head too, if it was exposed: someone claimed it)
        }
        return head != null ? queue.relaxedPoll() : null; // the head looked at
    }

    /**
     * Whether the thread takes the oldest execution of {@code execution}'s batch instead of it: it
     * belongs to a batch, may run on any worker of this pool, waits unclaimed, and is exposed (an
     * execution not exposed yet runs as any other: the batch's cursor cannot reach it). A stopping
     * worker takes nothing from its siblings, its batches' executions included.
     */
    private boolean inOrder(Execution<?> execution) {
        Batch batch = execution.batch();
        return batch != null && shared != null && lifecycle == OPEN && execution.stealable() && !execution.claimed()
                && batch.exposes(execution.indexInBatch());
    }

    /**
     * The oldest execution of {@code batch} that nobody has taken yet, claimed for this worker (its
     * owner kept in {@link #fromSibling} when that is a sibling); null once the batch has handed out
     * all it has exposed. Executions that must run where they were sent are passed over: their own
     * worker runs them as it finds them.
     */
    private Execution<?> takeInOrder(Batch batch) {
        for (Execution<?> next; (next = batch.next()) != null; ) {
            Worker sentTo = next.worker(); // before the claim: once claimed, it names the taker
            if (next.stealable() && sentTo instanceof ThreadWorker owner && owner.group == group && next.claim(this)) {
                fromSibling = owner == this ? null : owner;
                inBatch = batch;
                return next;
            }
        }
        return null;
    }

    /** The next execution, waiting for one while more may come; null once none will. */
    private Execution<?> take() {
        for (;;) {
            Execution<?> execution = queue.poll();
            if (execution != null || !awaitingWork()) {
                return execution;
            }
            execution = idle();
            if (execution != null) {
                return execution;
            }
        }
    }

    /** Whether an execution may still come: the worker is open, or a dispatch it admitted has not been taken. */
    private boolean awaitingWork() {
        if (lifecycle == OPEN) {
            return true;
        }
        long refused = givenBack.get(); // first: a dispatch counts itself in admitted before it gives its number back
        return queue.currentConsumerIndex() < admitted.get() - refused;
    }

    private Execution<?> idle() {
        Execution<?> execution = takeFromSibling();
        if (execution != null) {
            return execution;
        }
        if (feed != null) {
            feed.waiting();
        }
        SpinGate gate = spinGate();
        boolean gated = gate != null && !gate.enter();
        SpinBudget wait = gated ? GATED_WAIT : idleSpin;
        long budget = wait.next();
        long start = System.nanoTime();
        try {
            for (int spins = 1; (execution = queue.relaxedPoll()) == null; spins++) {
                if (spins % SPINS_PER_LOOK == 0 && (execution = takeFromSibling()) != null) {
                    break;
                }
                if (feed != null && feed.poll()) {
                    continue; // what it read may be in the queue now
                }
                if (!awaitingWork() || !wait.pause(start, spins, budget)) {
                    break;
                }
            }
        } finally {
            if (gate != null && !gated) {
                gate.leave();
            }
        }
        if (feed != null) {
            feed.stopped();
        }
        wait.ended(start, budget, execution != null);
        if (execution != null || !awaitingWork() || (execution = takeFromSibling()) != null) {
            return execution;
        }
        // A stray interrupt would make park() return at once, turning the idle worker into a spinner.
        Thread.interrupted();
        boolean watch = siblingBusy;
        // Even in a pool that shares nothing yet (its other workers still starting, or added later): such a
        // worker must still be woken by a sibling that gets shared work, or it would never take any.
        parked = shared != null && !watch ? PARKED_ALL_IDLE : 1;
        execution = queue.poll();
        if (execution == null && awaitingWork()) {
            forgetShared();
            // After publishing PARKED_ALL_IDLE (the pool's workers too): a shared dispatch that did not see it is seen here.
            watch |= shared != null && group.sharesAnyWork() && anySiblingBusy();
            if (watch) {
                LockSupport.parkNanos(this, LOOK_AGAIN_NANOS); // a sibling may get stuck: look again then
            } else if (group != null) {
                owesLook = false; // nobody has work to look for (a timed park keeps it: it looks again then)
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, IdleTimeout.nanos());
            }
        }
        int was = (int) PARKED.getAndSet(this, 0);
        boolean ownWork = execution != null || !queue.isEmpty();
        if (was == WOKEN_TO_LOOK && ownWork) {
            // Woken to look at the siblings, this thread has work of its own first (it came meanwhile): the wake was
            // spent on a busy thread, so it goes on to another sibling, if a shared task still waits unclaimed.
            if (siblingHasUnclaimedShared()) {
                wakeSiblingParkedAllIdle();
            }
        } else if (shared != null && execution != null && !queue.isEmpty() && holdsUnclaimedShared(execution)) {
            // This thread found work in its last poll, as it showed itself parked, and a shared task is queued behind
            // it: a dispatch here may have counted it idle and woken nobody (the write of parked, then the look at the
            // queue, against the dispatch's offer, then its read of parked: one of them sees the other).
            wakeSiblingParkedAllIdle();
        } else if (was == WOKEN_TO_LOOK) {
            lastLookAt = System.nanoTime() - LOOK_INTERVAL_NANOS; // look at once: what it was woken for
            owesLook = true; // until it parks untimed or runs a task: see work()
        }
        return execution;
    }

    /**
     * The oldest untaken execution of a batch under way ({@link #takeFromBatches}), or else a shared
     * execution that waits at a sibling of this worker's pool which is {@linkplain #behind
     * behind}, claimed for this worker (the sibling is kept in {@link #fromSibling}); null if none. A
     * sibling passed over because this thread took from an earlier one is judged at the next look on
     * a shorter while than it had: as if it had kept a faster pace, so it is taken from less readily.
     */
    private Execution<?> takeFromSibling() {
        boolean looks = shared != null && lifecycle == OPEN && group.sharesAnyWork();
        long now = looks ? System.nanoTime() : 0;
        if (looks && now - lastLookAt < LOOK_INTERVAL_NANOS) {
            return null; // looked lately (see LOOK_INTERVAL_NANOS): what it saw then, siblingBusy too, stands
        }
        if (looks && batches != null && batches.any()) { // a batch's oldest first; the siblings wait for the next look
            Execution<?> batched = takeFromBatches();
            if (batched != null) {
                return batched;
            }
        }
        if (siblingBusy) { // written only to change it: see runningFor
            siblingBusy = false;
        }
        if (!looks) {
            return null;
        }
        lastLookAt = now;
        long sinceLook = Math.min(now - lookedAt, 1_000_000_000L); // no overflow below: fewer than 2^33 unfinished
        lookedAt = now;
        for (WorkerHandle other : group.workers()) {
            if (other != this && other instanceof ThreadWorker sibling && sibling.shared != null) {
                if (sibling.index >= lastLook.length) { // indices are never reused: a pool's may exceed its size
                    lastLook = Arrays.copyOf(lastLook, sibling.index + 1);
                    lastRan = Arrays.copyOf(lastRan, sibling.index + 1);
                    lagging = Arrays.copyOf(lagging, sibling.index + 1);
                }
                long sent = sibling.queue.currentProducerIndex();
                long ranThere = sibling.progress.completed();
                long completed = ranThere + sibling.takenBySiblings.get();
                long unfinished = sent - completed;
                // The finished count, shifted one bit up, and whether it had unfinished work then (0: never looked).
                long look = completed << 1 | (unfinished > 0 ? 1 : 0);
                boolean behind = behind(lastLook[sibling.index], completed, unfinished, sinceLook);
                // Stuck: its own thread finished nothing (what siblings took from it is no progress of its thread).
                boolean stuck = behind && ranThere == lastRan[sibling.index];
                siblingBusy |= unfinished > 0;
                lastLook[sibling.index] = look;
                lastRan[sibling.index] = ranThere;
                lagging[sibling.index] = behind && !stuck;
                if (stuck) {
                    // What waits there waits for as long as its task runs, so it goes first.
                    Execution<?> taken = sibling.giveWaiting(this, sent - ranThere);
                    if (taken != null) {
                        fromSibling = sibling;
                        return taken;
                    }
                }
            }
        }
        for (WorkerHandle other : group.workers()) { // then each slow one, in order: one may have nothing shared waiting
            if (other != this && other instanceof ThreadWorker sibling && sibling.shared != null
                    && sibling.index < lagging.length && lagging[sibling.index]) {
                Execution<?> taken = sibling.giveWaiting(this, sibling.queue.currentProducerIndex() - sibling.progress.completed());
                if (taken != null) {
                    fromSibling = sibling;
                    return taken;
                }
            }
        }
        return null;
    }

    /**
     * The oldest execution nobody has taken of a batch under way, claimed, oldest batch first; null
     * if none. So a thread that took no execution of a batch still finds one left behind an older
     * execution of the batch on a busy sibling, where the sibling's shared slots may no longer hold
     * it (newer dispatches take them).
     */
    private Execution<?> takeFromBatches() {
        for (Batch batch : batches.all()) {
            Execution<?> taken = takeInOrder(batch);
            if (taken != null) {
                claimedInOrder = true;
                return taken;
            }
        }
        return null;
    }

    /**
     * Whether a sibling is behind: it had unfinished work at the previous look, has some now, and at
     * the pace it kept since (none: it is in a long task, or its thread is not running) it would
     * take longer than a {@link #LOOK_INTERVAL_NANOS} to finish it. Taking from one that is not
     * behind would only move cache lines between cores; one that finishes a task every few
     * microseconds but has dozens queued is behind, as much as one that is stuck.
     *
     * @param before the look at it before this one (see {@link #lastLook})
     * @param completed how many of its tasks are finished now
     * @param unfinished how many are not
     * @param sinceLook the nanoseconds since that previous look
     */
    static boolean behind(long before, long completed, long unfinished, long sinceLook) {
        long finishedSince = completed - (before >>> 1);
        return (before & 1) != 0 && unfinished > 0
                && (finishedSince == 0 || unfinished * sinceLook > finishedSince * LOOK_INTERVAL_NANOS);
    }

    /**
     * Claims for {@code taker} one of the shared executions among the last {@code notRunHere}
     * dispatched here (those this worker's thread has not finished, some of which siblings may have
     * taken), newest first by admission number: this worker's thread takes the oldest first, so the
     * newest are the likeliest still unclaimed, and one it claimed (running here, say) means that
     * those before it are taken too.
     */
    private Execution<?> giveWaiting(ThreadWorker taker, long notRunHere) {
        long newest = admitted.get() - 1;
        // Numbers given back may lie among those of the executions not run here: look past as many (an
        // upper bound, as givenBack counts them all).
        long numbers = notRunHere + givenBack.get();
        for (long back = 0; back < Math.min(numbers, SHARED_SLOTS); back++) {
            int slot = (int) (newest - back) & (SHARED_SLOTS - 1);
            Execution<?> candidate = shared.getAcquire(slot);
            if (candidate == null) {
                continue; // taken by another sibling, or a task that stays here
            }
            boolean claimed = candidate.claim(taker);
            shared.compareAndSet(slot, candidate, null);
            return claimed ? candidate : null;
        }
        return null;
    }

    /** The pool's gate for this idle thread's spin, or null if it may spin (see {@link SpinGate}). */
    private SpinGate spinGate() {
        if (shared == null) {
            return null; // no pool, or a backend's worker, which waits with its own budget
        }
        SpinGate gate = group.spinGate();
        return gate != null && gate.guards(group.workers().size()) ? gate : null;
    }

    /** Whether a sibling has work it has not finished: one of them may get stuck in it. */
    private boolean anySiblingBusy() {
        for (WorkerHandle other : group.workers()) {
            if (other != this && other instanceof ThreadWorker sibling && sibling.shared != null && sibling.activeCount() > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Wakes one sibling that parked while nobody had work, so that it looks at this worker again;
     * not one with work queued, whose wake is on its way (deferred, see {@link DeferredWakes}) and
     * which will be busy with that work.
     */
    private void wakeSiblingParkedAllIdle() {
        for (WorkerHandle other : group.workers()) {
            if (other != this && other instanceof ThreadWorker sibling && sibling.parked == PARKED_ALL_IDLE
                    && sibling.queue.isEmpty() && PARKED.compareAndSet(sibling, PARKED_ALL_IDLE, WOKEN_TO_LOOK)) {
                LockSupport.unpark(sibling.thread);
                return;
            }
        }
    }

    /** Whether a sibling holds a shared execution that no worker has claimed yet; the rare path of a wake passed on. */
    private boolean siblingHasUnclaimedShared() {
        for (WorkerHandle other : group.workers()) {
            if (other != this && other instanceof ThreadWorker sibling && sibling.shared != null && sibling.holdsUnclaimedShared(null)) {
                return true;
            }
        }
        return false;
    }

    /** Whether this worker holds a shared execution, other than {@code except}, that no worker has claimed yet. */
    private boolean holdsUnclaimedShared(Execution<?> except) {
        for (int i = 0; i < SHARED_SLOTS; i++) {
            Execution<?> execution = shared.getAcquire(i);
            if (execution != null && execution != except && !execution.claimed()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Before parking, lets go of the shared executions already claimed (run, or running), so that
     * an idle worker keeps no finished execution (and its result) alive; one not yet claimed still
     * waits in the queue (a dispatch may have come after this thread's last poll), so it stays.
     */
    private void forgetShared() {
        if (shared != null) {
            for (int i = 0; i < SHARED_SLOTS; i++) {
                Execution<?> execution = shared.getPlain(i);
                if (execution != null && execution.claimed()) {
                    shared.compareAndSet(i, execution, null);
                }
            }
        }
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
        while ((execution = take()) != null) {
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
