package dev.moroutine.isolated.internal;

import dev.moroutine.Signal;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.Feed;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.SpinBudget;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.internal.dispatch.WorkerGroup;
import dev.moroutine.internal.stream.Pipe;
import dev.moroutine.internal.shared.DelayedActions;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * A pool worker whose tasks run in a child JVM ({@link Child}). The handle stays the same when a
 * dead JVM is replaced by a new one.
 *
 * <h2>Threads</h2>
 * A dispatching thread encodes the task ({@link Codec}: an argument that cannot cross fails the
 * call there), counts it in {@code admitted} and writes it into the request ring itself (see
 * "Direct sends") or offers it to the {@code outbox}, a lock-free multi-producer queue. One platform
 * daemon thread per worker, the <em>pump</em>, owns everything
 * else, holding {@code pumping}: it moves tasks from the outbox into the request ring, reads the
 * reply ring and completes the executions (so dependent stages without {@code Async} run on it, or
 * on a caller that reads answers: see below), starts and replaces the JVM, and stops it. With
 * nothing to do it spins briefly (without the lock while callers watch), then sleeps in a {@link Selector} on the
 * doorbell socket, having announced it in {@code parked} (for this JVM's threads, which wake it
 * with {@link Selector#wakeup()}) and in the shared file (for the child, which rings the socket):
 * see {@link SharedFile} for the hand-shake. A dispatch offers, then reads {@code parked}; the
 * pump writes {@code parked}, then looks at the outbox (before it sleeps, and before it spins
 * without the lock); both are volatile, so one sees the other.
 *
 * <h2>Callers read answers</h2>
 * A caller waiting for an answer (spinning, through {@link #callerFeed()}) counts itself in
 * {@code watching}, which also holds {@link #PUMP} while the pump is awake. While a caller watches,
 * the pump does not spin holding {@code pumping}, unless it has just sent tasks from the outbox
 * (tasks that need it: a timeout, a signal, a stream; the callers' next ones will too, and a
 * sleeping pump would cost each a wake-up): it releases {@code pumping}, waits yielding for the idle
 * budget, still watching, then sleeps; a caller that takes the lock ({@code tryLock}: never
 * waiting for it) reads the reply ring as the pump would, with the same code, so an answer crosses
 * no thread of its own to reach a waiting caller. The pump, awake in that wait, reads the answers
 * that come while no caller watches (a pipelining caller between two waits), so the child need not
 * ring for them; this JVM's threads wake it there as if it slept ({@code parked}). Whoever holds the lock
 * is the pump for that moment; the pump takes it back when it wakes (waiting for a caller's batch).
 * So the pump's state (the tasks in flight, the JVM, its mapped file, which is unmapped only under
 * the lock) has one owner at a time, and the lock orders their writes; so a stream's items, which
 * the pump or any caller may hand to its consumer, go into a pipe {@linkplain Pipe#producedInTurns
 * produced in turns}. A caller that read answers
 * wakes the pump when they made work for it ({@link #pumpMustLook}). The parent's parked word in
 * the shared file says whether the child must ring: the last watcher to stop (the pump as it sleeps,
 * or the last caller, under the lock) sets it and looks at the reply ring once more; a caller that
 * becomes the first watcher takes it back. The pump sets {@code parked} before it stops watching,
 * so a last caller that cannot take the lock (the pump is about to sleep, having seen the caller
 * watch, and left the word alone) wakes it instead, and it looks again.
 * A completion run by a caller that holds the lock is run by the pump, as far as this worker
 * is concerned: {@link #isCurrent()} is true there, and such a caller reads no more answers.
 * What waits for room in a full request ring is no work until the child has read on: the pump
 * sleeps then too, having set {@code roomWanted} in the shared file, so the child rings once it has
 * emptied half the ring; that hand-shake may lose a ring (see {@link SharedFile}), so the pump
 * sleeps for at most {@link #FULL_RING_WAIT_MILLIS}.
 *
 * <h2>Direct sends</h2>
 * A task that needs nothing of the pump before its answer (a value task with no timeout, no signal
 * and no stream argument: the common case) is written into the request ring by the dispatching
 * thread itself, which rings the child's doorbell if it sleeps, so the pump is not woken to send it:
 * it wakes for the answer. The request ring has one writer at a time: whoever holds the
 * {@code writing} flag (a CAS from 0 to 1, released by a volatile write of 0), the pump for
 * everything it writes, or such a dispatch. A dispatch that does not get the flag at once, or finds
 * a task of the pump's waiting to be sent (in the outbox or put back: its own earlier one may be
 * there, and it must not overtake it), the JVM at its task limit, or the ring full, offers to the
 * outbox as any other task; it never waits. The writer gives each task its sequence number and
 * queues it in {@code sent} before committing it, so {@code sent} is in the ring's order and holds a
 * task before its answer can be read; the pump moves {@code sent} into {@code inFlight} before it
 * reads anything about a task (and at each pass), and from then on the task is the pump's as if it
 * had sent it. A cancellation the pump looked at before the task reached {@code inFlight} is looked
 * at again when it does.
 *
 * <p>A dispatch writes only to the JVM in {@code direct}, the gate, which the pump opens once a JVM
 * is ready and fresh (while the worker is open), and shuts, holding the flag, before it settles a dead JVM's tasks, hands over
 * to a successor, stops, or unmaps a file: after that no dispatch writes to that JVM, and
 * {@code sent} holds every task written to it. A dispatch reads the gate after taking the flag, so
 * it sees what the pump wrote before it opened the gate ({@code retry}, the task limit). The
 * pump's {@link #running()} and idle clock learn of a direct task when it reaches {@code inFlight}.
 *
 * <h2>In flight</h2>
 * The child runs its tasks one at a time, in the order of the ring, and replies to each exactly once,
 * once its run has ended. A value task's answer is written before the child takes the next task; a
 * streaming task is answered by its forwarder once its last items have crossed, which may be after
 * the next task started, so the child also reports, before it takes the next task, that the
 * stream's run has ended ({@link Child#RUN_ENDED}; the pump marks it {@code runEnded}). So the tasks
 * in flight are, in order: streams whose run has ended and whose items are on their way; then the
 * one that runs (or is about to start), which the pump calls {@link #current()}; then tasks that have
 * not started. The reply ring is ordered as the child claimed its messages, so what the child
 * wrote before it took a task is read before anything that task caused. A task cancelled from outside
 * ({@code cancel(…)} on its future) is reported to the pump by its entry, which its execution
 * tells as it completes ({@link Execution#onSettled}: no completion stage per task), and the pump
 * looks at {@code isCancelled()} again as it sends a task and as it learns of a direct send, for a
 * cancellation that came before the entry was set; the pump sends
 * {@link Child#CANCEL}; the child cancels its own execution, interrupting the run, but answers only
 * when its worker thread has left the run: a function that ignores interrupts runs on, and the
 * cancelled task stays the running one here, with its timer. A task's timeout is counted from the
 * moment it becomes the current one (sent to an idle JVM, or the one before it answered or ended
 * its run), which is when the child starts it, to within the wake-up of the pump; it covers the run
 * only, as on a thread, so a stream's timer stops when its run ends. When it runs out, the timer
 * fails the task with a {@link TimeoutException} (which does nothing to a future already cancelled)
 * and the pump kills the JVM, unless the run ended first: the timer is the one stopper that goes
 * on when it loses the race, as in {@link Execution}. The credit of a streaming task's output and
 * the items of stream arguments go to the current task only.
 *
 * <h2>Death</h2>
 * When the JVM dies (its socket ends; its exit is also watched), the pump reads the replies it
 * wrote before dying (all of them: a message a dying thread had claimed and not committed is
 * skipped, not waited for, see {@link SharedFile#readAllLeft}), then fails with a
 * {@link WorkerDiedException} (naming the task, the exit status and the last lines of the JVM's
 * output) the streams whose run had ended (their items on
 * the way are lost; their function ran, so they are not run again) and the current task, puts the
 * others back, in order, ahead of the outbox (none of them started), and starts a new JVM, which
 * gets them first. An
 * unexpected death counts towards the pool's crash limit ({@link IsolatedBackend#died}); a JVM
 * killed for a timeout does not.
 *
 * <h2>Lifecycle</h2>
 * <pre>
 * OPEN ──drain()──► DRAINING ──every admitted task answered: STOP sent, the JVM exits──► stopped
 *   └──forceStop(), a crash loop, or the first JVM does not start──► STOPPED ──TERMINATE, then kill──► stopped
 * </pre>
 * A dispatch counts itself in {@code admitted}, then reads the lifecycle and, unless OPEN, takes
 * itself out and is refused; the stopping side writes the lifecycle, then the pump reads
 * {@code admitted}: as in {@code ThreadWorker}, either the dispatch sees the stop or the pump
 * waits for it. Every admitted task is counted once in {@code settled} by the pump when it is
 * answered, failed or cancelled; {@link #activeCount()} is the difference. A graceful stop lets the
 * child close its task-arg values and exit; a forced one asks it to stop at once (which interrupts
 * its task and still closes the values) and kills it if it has not exited within
 * {@link #STOP_GRACE}.
 */
public final class IsolatedWorker implements Worker {

    private static final System.Logger LOG = System.getLogger(IsolatedWorker.class.getName());

    private static final int OPEN = 0;
    private static final int DRAINING = 1;
    private static final int STOPPED = 2;

    /** How long the pump, and a caller waiting for a result, wait, yielding, before they sleep: see {@link SpinBudget#yielding}. */
    private static final int SPIN_NANOS = 200_000;
    /** How long a forced stop lets the JVM exit by itself, and a dead one to be reaped. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(1);
    /** How long a retired JVM may take to close its task-arg values and exit. */
    private static final Duration RETIRE_GRACE = Duration.ofSeconds(30);
    /** How long the pump sleeps at most while the request ring is full: the child's ring for room may be lost. */
    private static final int FULL_RING_WAIT_MILLIS = 1;
    /** Replies read in one go, so that the pump also sends while a busy JVM replies. */
    private static final int REPLY_BATCH = 64;
    /** The feeders of a task with no stream argument. */
    private static final StreamFeeder[] NO_FEEDERS = {};
    /** In {@code watching}: the pump is awake. */
    private static final int PUMP = 1;
    /** In {@code watching}: what each waiting caller adds. */
    private static final int CALLER = 2;

    private static final VarHandle ADMITTED;
    private static final VarHandle PARKED;
    private static final VarHandle WRITING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ADMITTED = lookup.findVarHandle(IsolatedWorker.class, "admitted", long.class);
            PARKED = lookup.findVarHandle(IsolatedWorker.class, "parked", int.class);
            WRITING = lookup.findVarHandle(IsolatedWorker.class, "writing", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final int index;
    private final WorkerGroup group;
    private final IsolatedBackend backend;
    private final MpscUnboundedAtomicArrayQueue<Entry> outbox = new MpscUnboundedAtomicArrayQueue<>(64);
    /** Tasks cancelled from outside ({@code cancel(…)} on their future): the pump asks the child to stop them. */
    private final MpscUnboundedAtomicArrayQueue<Entry> cancelled = new MpscUnboundedAtomicArrayQueue<>(16);
    /** Tasks one of whose signal arguments has fired, or which were sent with such arguments: the pump tells the child. */
    private final MpscUnboundedAtomicArrayQueue<Entry> signalled = new MpscUnboundedAtomicArrayQueue<>(16);
    /** Tasks written to the request ring, in the ring's order, that the pump has not yet put in {@code inFlight}. */
    private final MpscUnboundedAtomicArrayQueue<Entry> sent = new MpscUnboundedAtomicArrayQueue<>(64);
    private final SpinBudget idleSpin = SpinBudget.yielding(SPIN_NANOS);
    private final SpinBudget callerSpin = SpinBudget.yielding(SPIN_NANOS);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final Selector selector;
    private final Thread pump;
    /** Held by whoever acts as the pump: the pump thread, but in its sleeps, or a caller reading answers then (see "Callers read answers"). */
    private final ReentrantLock pumping = new ReentrantLock();
    /** Who watches the reply ring: {@link #PUMP} while the pump is awake, plus {@link #CALLER} per waiting caller. */
    private final AtomicInteger watching = new AtomicInteger(PUMP);
    private final Feed callers = new CallersFeed();

    private volatile int lifecycle = OPEN;
    private volatile String stopReason;
    /** Set with STOPPED when a crash loop stops the pool: tasks then fail with it instead of being cancelled. */
    private volatile String crashLoop;
    private volatile long admitted;
    /** Written under {@code pumping} only. */
    private volatile long settled;
    private volatile int parked;
    /** The JVM's process ended; the pump looks. */
    private volatile boolean exited;
    /** A timer fired; the pump looks. */
    private volatile boolean overtime;
    private volatile Execution<?> running;
    /** What a caller reading answers threw ({@link VirtualMachineError}s only): the pump stops the worker, as if it had thrown it. */
    private volatile Throwable callerFault;
    /** 1 while a thread writes the request ring: the pump, or a dispatch that writes its task itself (see "Direct sends"). */
    private volatile int writing;
    /** The JVM whose request ring a dispatch may write itself, or null: the gate of "Direct sends"; written by the pump. */
    private volatile ChildProcess direct;

    // Owned by the holder of pumping.
    private final ArrayDeque<Entry> retry = new ArrayDeque<>();
    private final ArrayDeque<Entry> inFlight = new ArrayDeque<>();
    private final ByteBuffer scratch = ByteBuffer.allocate(64);
    /** Where an answer or a stream's items are decoded, by whoever holds {@code pumping}. */
    private final MessageBytes replyBytes = new MessageBytes();
    /** The stream arguments being fed to the child, of the task it runs. */
    private final ArrayDeque<StreamFeeder> feeding = new ArrayDeque<>();
    private final org.apache.fory.memory.MemoryBuffer feedBuffer = org.apache.fory.memory.MemoryBuffer.newHeapBuffer(
            StreamForwarder.BYTE_BUDGET + 1024);
    private final Object[] feedBatch = new Object[StreamForwarder.MAX_BATCH];
    private ChildProcess child;
    /** A JVM started to take over from {@code child}, which is retiring (see {@link Retirement}); else null. */
    private ChildProcess successor;
    private long successorLaunched;
    /** The successor's socket ended (seen while idle): it died before taking over. */
    private boolean successorEnded;
    /** Tasks sent to {@code child}; it gets none beyond {@code taskLimit}. Written under {@code writing}, or with the gate shut. */
    private volatile long sentToChild;
    private long taskLimit = Long.MAX_VALUE;
    /** When {@code child} last became idle after running tasks ({@link System#nanoTime()}); 0 if busy or fresh. */
    private long idleSince;
    private boolean socketEnded;
    /** The read position of {@code child}'s request ring when a write last found it full; -1 once the child read on. */
    private long fullAt = -1;
    private boolean stopSent;
    /**
     * The pump has sent tasks from the outbox since it last went idle: callers' tasks need it, so it
     * stays awake for the next one (and reads their answers) rather than sleep while they watch.
     */
    private boolean carrying;
    /** Written under {@code writing}. */
    private long nextSeq;

    /**
     * A task on its way: admitted, then sent, then answered, failed or cancelled. Told when its
     * execution completes: cancelled from outside, it goes to the pump to be stopped in the child.
     */
    private final class Entry implements Execution.Settlement {
        final Execution<?> execution;
        final byte[] request;
        /** From the task's start; -1 for none. */
        final long timeoutNanos;
        long seq;
        ScheduledFuture<?> timer;
        /** The pump asked the child to cancel it. */
        boolean cancelSent;
        /** The pump's: the child reported that its run (a streaming task's) has ended; its answer follows its items. */
        boolean runEnded;
        /** A streaming task's output: the caller's end, which the pump feeds; null for a value task. */
        final Pipe<Object> output;
        /** The consumed count last sent to the child as credit (see {@link StreamForwarder}). */
        long credited;
        /** Its stream arguments' feeders by position, once it has started; null before, or if it has none. */
        StreamFeeder[] feeders;
        /** Its signal arguments' onAbort registrations, closed when it settles; null if it has none. */
        Signal.Registration[] signals;
        /** The positions of its fired signals the child has been told of since it was last sent, as bits. */
        int firedSent;
        /**
         * The JVM it was last sent to: while that is the current one and it is not settled, it is in flight
         * there (a retiring JVM hands over only once it has answered everything).
         */
        ChildProcess sentTo;
        /** Written by the pump; read by a canceller, which only skips work when it sees it. */
        volatile boolean settled;
        volatile boolean timedOut;

        Entry(Execution<?> execution, byte[] request, long timeoutNanos, Pipe<Object> output) {
            this.execution = execution;
            this.request = request;
            this.timeoutNanos = timeoutNanos;
            this.output = output;
        }

        @Override
        public void settled(Object value, Throwable failure) {
            if (failure instanceof CancellationException && !settled) { // not the pump's own cancelling
                cancelled.offer(this);
                wake();
            }
        }
    }

    IsolatedWorker(String name, int index, WorkerGroup group, IsolatedBackend backend) {
        this.name = name;
        this.index = index;
        this.group = group;
        this.backend = backend;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a selector for " + name + ": " + e, e);
        }
        this.pump = Thread.ofPlatform().daemon().name(name + "-pump").unstarted(this::pump);
    }

    void start() {
        pump.start();
    }

    /** Completes when the first JVM is ready, or fails with why it could not start. */
    CompletableFuture<Void> ready() {
        return ready;
    }

    @Override
    public void dispatch(Execution<?> execution) {
        execution.sentTo(this);
        Invocation invocation = execution.invocation();
        byte[] request = backend.codec().encodeInvocation(invocation, name);
        int most = SharedFile.RING_CAPACITY / 8 - runHeader(Codec.streams(invocation)); // Agrona's largest message
        if (request.length > most) {
            throw new IllegalArgumentException("the arguments of " + invocation + " take " + request.length + " bytes encoded,"
                    + " more than the " + most + " that isolated worker " + name + " takes in one task; pass large data"
                    + " in a file instead");
        }
        ADMITTED.getAndAdd(this, 1L);
        if (lifecycle != OPEN) {
            ADMITTED.getAndAdd(this, -1L);
            selector.wakeup(); // a stopping pump may be waiting for this count
            throw new RejectedExecutionException(stopReason + ", so " + name + " cannot run " + invocation);
        }
        execution.admitted();
        Entry entry = new Entry(execution, request, timeoutNanos(invocation), output(execution));
        boolean signals = invocation.takesSignal();
        if (signals) {
            watchSignals(entry);
        }
        execution.onSettled(entry); // a cancellation before this is seen where the pump looks at isDone() again
        boolean alone = entry.output == null && entry.timeoutNanos < 0 && !signals && !invocation.takesStream();
        if (!alone || !sendDirect(entry)) {
            outbox.offer(entry);
            wake();
        }
    }

    /**
     * Writes a task that needs nothing of the pump until its answer into the request ring on the
     * dispatching thread, if the gate is open and no task of the pump's waits to be sent before it
     * (see "Direct sends").
     *
     * @return {@code false} if the pump must send it
     */
    private boolean sendDirect(Entry entry) {
        if (direct == null || !WRITING.compareAndSet(this, 0, 1)) {
            return false;
        }
        boolean ring;
        SocketChannel bell;
        try {
            ChildProcess target = direct; // read again: the pump shuts the gate holding the writing flag
            if (target == null || !retry.isEmpty() || !outbox.isEmpty() || sentToChild >= taskLimit || !writeRun(target, entry)) {
                return false;
            }
            ring = target.shared().mustRing(SharedFile.Side.CHILD); // reads the mapped file: before the gate may shut
            bell = target.socket();
        } finally {
            writing = 0;
        }
        if (ring) {
            Doorbell.ring(bell); // false if the JVM is dying: its socket's end wakes the pump, which sees to it
        }
        return true;
    }

    /** The bytes of a RUN message before its arguments: the sequence number, and a stream's high-water mark. */
    private static int runHeader(boolean streams) {
        return streams ? Long.BYTES + Integer.BYTES : Long.BYTES;
    }

    /**
     * Writes a task's {@link Child#RUN} or {@link Child#RUN_STREAM} message, holding the writing
     * flag, and queues it in {@code sent} before committing it: the pump knows of it before its
     * answer can come.
     *
     * @return {@code false} if the ring is full
     */
    private boolean writeRun(ChildProcess target, Entry entry) {
        RingBuffer requests = target.shared().requests();
        int header = runHeader(entry.output != null);
        int at = requests.tryClaim(entry.output == null ? Child.RUN : Child.RUN_STREAM, header + entry.request.length);
        if (at < 0) {
            return false;
        }
        entry.seq = ++nextSeq;
        entry.sentTo = target;
        entry.credited = 0;
        entry.firedSent = 0;
        MutableDirectBuffer buffer = requests.buffer();
        buffer.putLong(at, entry.seq);
        if (entry.output != null) {
            buffer.putInt(at + Long.BYTES, entry.output.highWaterMark());
        }
        buffer.putBytes(at + header, entry.request);
        sent.offer(entry);
        requests.commit(at);
        sentToChild = sentToChild + 1; // the writing flag's holder is the only writer
        return true;
    }

    /**
     * The pump's: moves the tasks written since it last looked into {@code inFlight}, in the ring's
     * order; the one that is now current starts.
     */
    private void collectSent() {
        for (Entry entry; (entry = sent.poll()) != null; ) {
            idleSince = 0;
            inFlight.addLast(entry);
            if (current() == entry) { // the JVM was idle, or only finished streams' items are on their way
                started(entry);
            }
            if (entry.signals != null) {
                signalled.offer(entry); // a signal may have fired since it was encoded
            }
            if (entry.execution.isCancelled()) {
                cancelled.offer(entry); // sendCancels() skipped it if it looked before it was here
            }
        }
    }

    /** The pump's: no dispatch writes the request ring from now on, until {@link #openGate()}. */
    private void shutGate() {
        if (direct == null) {
            return;
        }
        for (int spins = 1; !WRITING.compareAndSet(this, 0, 1); spins++) {
            if ((spins & 63) == 0) {
                Thread.yield(); // a dispatch holds it for one write; it may have lost its core
            } else {
                Thread.onSpinWait();
            }
        }
        direct = null;
        writing = 0;
    }

    /** The pump's, once {@code child} is ready and fresh: dispatches may write its request ring. */
    private void openGate() {
        if (lifecycle == OPEN) {
            direct = child;
        }
    }

    /**
     * Asks the pump to tell the child when one of the task's signals fires. The pump also looks
     * after each time it sends the task (it was encoded with the signals as they were then), so a
     * signal firing between the encoding and the sending is not lost.
     */
    private void watchSignals(Entry entry) {
        Object[] args = entry.execution.invocation().args();
        Signal.Registration[] registrations = new Signal.Registration[args.length];
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof Signal signal) {
                try {
                    registrations[i] = signal.onAbort(() -> {
                        signalled.offer(entry);
                        wake();
                    });
                } catch (RuntimeException refused) { // a user's own Signal: the task fails, the pump settles it unsent
                    closeAll(registrations);
                    entry.execution.completeExceptionally(new IllegalStateException("argument " + (i + 1) + " of "
                            + entry.execution.invocation() + " is a Signal whose onAbort(…) threw, so isolated worker " + name
                            + " cannot tell the task when it fires: " + refused, refused));
                    return;
                }
            }
        }
        entry.signals = registrations;
    }

    private void closeAll(Signal.Registration[] registrations) {
        for (Signal.Registration registration : registrations) {
            if (registration != null) {
                try {
                    registration.close();
                } catch (RuntimeException failed) { // a user's own Signal: its action stays, harmless once the task settled
                    LOG.log(System.Logger.Level.WARNING, () -> name + ": closing an onAbort registration of a task's signal"
                            + " failed", failed);
                }
            }
        }
    }

    /**
     * A streaming task's output, opened here for the pump to feed: the function runs in the child.
     * Its consumer waits for items as a caller waits for an answer here, yielding: they come along
     * the same chain of threads.
     */
    @SuppressWarnings("unchecked") // a streaming call's output binding opens its Pipe
    private Pipe<Object> output(Execution<?> execution) {
        Invocation invocation = execution.invocation();
        if (!Codec.streams(invocation)) {
            return null;
        }
        Pipe<Object> output = (Pipe<Object>) execution.binding(invocation.args().length).open(this);
        output.waitsWith(callerSpin);
        output.producedInTurns(); // by whoever reads the replies: the pump, or a caller while it sleeps
        output.producedElsewhere(); // the pump waits for the consumer's takes through wakeOnConsumption
        return output;
    }

    private void wake() {
        // The caller's offer may be a release store only (a feeder's SPSC queue): without a fence this
        // read of parked could pass it while the pump, having set parked, finds the queue empty and sleeps.
        VarHandle.fullFence();
        if (parked != 0 && PARKED.compareAndSet(this, 1, 0)) {
            selector.wakeup();
        }
    }

    private long timeoutNanos(Invocation invocation) {
        Duration timeout = invocation.timeout() != null ? invocation.timeout() : group.taskTimeout();
        return timeout == null ? -1 : TimeUnit.NANOSECONDS.convert(timeout); // convert() saturates
    }

    @Override
    public boolean isCurrent() {
        // Whoever acts as the pump completes executions: waiting there would stop it answering.
        return pumping.isHeldByCurrentThread();
    }

    /**
     * Never called: the stop hand-shake that calls it runs only for executions run in this JVM, and
     * these run in the child. A cancelled task is stopped by the child's own hand-shake (see the
     * class comment); a timeout kills the child.
     */
    @Override
    public void interruptRun() {}

    @Override
    public SpinBudget callerSpin() {
        return callerSpin;
    }

    @Override
    public Feed callerFeed() {
        return callers;
    }

    /** A waiting caller's part in reading the answers: see "Callers read answers". */
    private final class CallersFeed implements Feed {
        @Override
        public void waiting() {
            if (watching.getAndAdd(CALLER) == 0 && pumping.tryLock()) { // nobody watched: the reply ring's word may say parked
                try {
                    if (child != null) {
                        child.shared().awake(SharedFile.Side.PARENT); // the caller reads: the child need not ring
                    }
                } finally {
                    pumping.unlock();
                }
            } // else the child may ring, needlessly: the pump wakes, finds callers watching and sleeps again
        }

        @Override
        public boolean poll() {
            if (pumping.isHeldByCurrentThread() || !pumping.tryLock()) { // held here: a completion run by this very read waits
                return false;
            }
            boolean pumpMustLook;
            int read;
            try {
                if (child == null) {
                    return false; // the pump stopped for good
                }
                Entry currentBefore = current();
                long idleBefore = idleSince;
                read = child.shared().replies().read(IsolatedWorker.this::onReply, REPLY_BATCH);
                pumpMustLook = read > 0 && pumpMustLook(currentBefore, idleBefore);
            } catch (Throwable fault) { // a VirtualMachineError: onReply catches the rest, as on the pump
                callerFault = fault;
                wake();
                throw fault;
            } finally {
                pumping.unlock();
            }
            if (pumpMustLook) {
                wake();
            }
            return read > 0;
        }

        @Override
        public void stopped() {
            if (watching.addAndGet(-CALLER) != 0) {
                return;
            }
            if (!pumping.tryLock()) {
                // The pump holds it: awake since its sleep, it sets the word when it sleeps again; or about to
                // sleep, having seen this caller watch, so it has not set the word: it must look again.
                wake();
                return;
            }
            boolean answered = false;
            try {
                if (child != null && watching.get() == 0) { // else someone watches again, or the pump stopped for good
                    SharedFile shared = child.shared();
                    shared.park(SharedFile.Side.PARENT);
                    answered = shared.replies().size() > 0 && shared.unpark(SharedFile.Side.PARENT);
                }
            } finally {
                pumping.unlock();
            }
            if (answered) {
                wake(); // an answer came before the child could see that nobody watches
            }
        }
    }

    /**
     * After a caller read answers while the pump slept: whether the pump must look, having work
     * that those answers made (the current task's stream, whose credit it watches; its stream
     * arguments' items, {@link #pumpWork()}, whose feeders wake it anyway; the idle timer
     * it sleeps by; the stop it sends once everything is answered; a retiring JVM's hand-over).
     */
    private boolean pumpMustLook(Entry currentBefore, long idleBefore) {
        Entry now = current();
        return lifecycle != OPEN || successor != null || pumpWork()
                || now != currentBefore && now != null && now.output != null
                || idleBefore == 0 && idleSince != 0 && backend.retirement().idleNanos() >= 0;
    }

    @Override
    public WorkerGroup group() {
        return group;
    }

    @Override
    public void drain(String reason) {
        if (lifecycle == OPEN) {
            stopReason = reason;
            lifecycle = DRAINING;
            selector.wakeup();
        }
    }

    @Override
    public void forceStop(String reason) {
        if (lifecycle != STOPPED) {
            stopReason = reason;
            lifecycle = STOPPED;
        }
        selector.wakeup();
    }

    /** The pool stops replacing its JVMs: this worker stops, failing its tasks with {@code reason}. */
    void crashLoop(String reason) {
        crashLoop = reason;
        forceStop(reason);
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
        return running;
    }

    @Override
    public int activeCount() {
        return (int) Math.max(0, admitted - settled);
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
        return "isolated worker " + index + " (" + name + ")";
    }

    // ---- the pump ----

    private void pump() {
        pumping.lock(); // for good, but in its sleeps
        Throwable fault = null;
        try {
            child = startJvm();
            fresh();
            openGate();
            ready.complete(null);
            work();
        } catch (StartFailure failure) {
            crashLoop = failure.getMessage();
            stopReason = failure.getMessage();
            lifecycle = STOPPED;
            ready.completeExceptionally(failure);
            abandonAll();
        } catch (Throwable unexpected) {
            fault = unexpected;
            String reason = name + " stopped: its pump thread failed (" + unexpected + ")";
            crashLoop = reason;
            stopReason = reason;
            lifecycle = STOPPED;
            ready.completeExceptionally(unexpected);
            abandonAll();
        } finally {
            shutGate();
            if (child != null) {
                child.kill(stopReason);
                child.close();
                child = null;
            }
            if (successor != null) {
                successor.kill(stopReason);
                successor.awaitExit(STOP_GRACE);
                successor.close();
                successor = null;
            }
            try {
                selector.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "closing the selector of " + name + " failed", e);
            }
            pumping.unlock(); // with child null: a caller reads no more (watching keeps PUMP: none sets the word either)
            backend.workerStopped(); // before the count-down: once the pool is closed, its shared files are gone
            stopped.countDown();
            if (fault != null) {
                LOG.log(System.Logger.Level.ERROR, name + " stopped: its pump thread failed", fault);
            }
        }
    }

    /** Thrown when a JVM does not start; its message says why, with the JVM's output. */
    private static final class StartFailure extends Exception {
        private static final long serialVersionUID = 1L;

        StartFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private ChildProcess startJvm() throws StartFailure, IOException {
        return awaitStarted(launchJvm());
    }

    private ChildProcess launchJvm() throws StartFailure {
        try {
            return ChildProcess.launch(backend.launcher(), backend.arguments(name, index, group.highWaterMark()), name, selector,
                    this::exited);
        } catch (IOException e) {
            throw new StartFailure("could not start a JVM for " + name + ": " + e, e);
        }
    }

    /** A new current JVM: nothing sent to it yet, and its own limit. */
    private void fresh() {
        fullAt = -1; // a position in the last JVM's ring
        sentToChild = 0;
        taskLimit = backend.retirement().nextLimit();
        idleSince = 0;
    }

    /** Waits until {@code starting} is ready, and checks that it still lives (a successor may have died while it waited). */
    private ChildProcess awaitStarted(ChildProcess starting) throws StartFailure, IOException {
        long timeout = TimeUnit.NANOSECONDS.convert(backend.settings().startTimeout());
        long start = System.nanoTime();
        for (boolean ready; !(ready = starting.accept()) || !alive(starting); ) {
            String failed = ready ? "its JVM died after it was ready"
                    : !starting.process().isAlive() ? "its JVM exited before it was ready"
                    : lifecycle == STOPPED ? "the worker was stopped while its JVM started"
                    : System.nanoTime() - start > timeout ? "its JVM was not ready within " + backend.settings().startTimeout()
                    : null;
            if (failed != null) {
                starting.kill(failed);
                starting.awaitExit(STOP_GRACE);
                String message = name + " could not start: " + failed + ", with " + starting.exitDescription() + ". "
                        + starting.lastOutput();
                starting.close();
                throw new StartFailure(message, null);
            }
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeout - (System.nanoTime() - start))));
            selector.selectedKeys().clear();
        }
        exited = false;
        socketEnded = false;
        stopSent = false;
        return starting;
    }

    /** Whether a connected JVM is still there: its process runs and its socket has not ended. */
    private boolean alive(ChildProcess connected) {
        return connected.process().isAlive() && Doorbell.drain(connected.socket(), scratch);
    }

    private void exited() {
        exited = true;
        selector.wakeup();
    }

    /** Runs until the worker stops. */
    private void work() throws IOException {
        for (;;) {
            Throwable fault = callerFault;
            if (fault != null) {
                throw new IllegalStateException("a caller reading its answers failed", fault);
            }
            collectSent();
            boolean busy = child.shared().replies().read(this::onReply, REPLY_BATCH) > 0;
            if (overtime) {
                overtime = false;
                Entry current = current();
                if (current != null && current.timedOut) {
                    child.kill(current.execution.invocation() + " ran over its timeout");
                }
            }
            boolean gone = socketEnded;
            if (exited) {
                exited = false; // it may be a replaced JVM's, or the successor's (retire() looks at that one)
                gone |= !child.process().isAlive();
            }
            if (gone) {
                if (!replaceJvm()) {
                    return;
                }
                continue;
            }
            if (lifecycle == STOPPED) {
                terminate();
                return;
            }
            if (WRITING.compareAndSet(this, 0, 1)) {
                try {
                    boolean sentTasks = send();
                    carrying |= sentTasks;
                    busy |= sentTasks;
                    busy |= sendCancels();
                    busy |= sendSignals();
                    busy |= sendCredit();
                    busy |= sendFeeds();
                    if (lifecycle == DRAINING && !stopSent && settled == admitted) {
                        stopSent = write(Child.STOP, 0);
                        busy = true;
                    }
                } finally {
                    writing = 0;
                }
            } else {
                busy = true; // a dispatch writes its task: the pump writes on its next pass
            }
            busy |= retire();
            if (!busy) {
                idle();
            }
        }
    }

    private boolean hasWork() {
        return child.shared().replies().size() > 0 || pumpWork();
    }

    /** What the pump has to do but read answers. */
    private boolean pumpWork() {
        return exited || overtime || idleExpired() || roomToWrite()
                && ((!outbox.isEmpty() || !retry.isEmpty()) && sentToChild < taskLimit || !cancelled.isEmpty() || !signalled.isEmpty()
                || creditDue() != null || feedsWaiting());
    }

    /** Claims room in a request ring; if there is none, remembers where the child's reader was. */
    private int claim(RingBuffer requests, int type, int length) {
        int at = requests.tryClaim(type, length);
        if (at < 0) {
            fullAt = requests.consumerPosition();
        }
        return at;
    }

    /**
     * Whether a message for the child may find room: no write found the ring full, or the child has
     * read since. While it stays full, what waits to be written is no work: the pump sleeps.
     */
    private boolean roomToWrite() {
        if (fullAt >= 0 && child.shared().requests().consumerPosition() == fullAt) {
            return false;
        }
        fullAt = -1;
        return true;
    }

    /**
     * Waits for work yielding the core, for the idle budget: whether it came.
     *
     * @param forCallers whether it waits for callers' tasks too; else it stops once a caller watches
     */
    private boolean spunIntoWork(boolean forCallers) {
        long budget = idleSpin.next();
        long start = System.nanoTime();
        for (int spins = 1; idleSpin.pause(start, spins, budget); spins++) {
            if (hasWork()) {
                idleSpin.ended(start, budget, true);
                return true;
            }
            if (!forCallers && watching.get() != PUMP) {
                break; // a caller watches: it reads the answers while it waits
            }
        }
        idleSpin.ended(start, budget, false);
        return false;
    }

    /**
     * While callers watch the reply ring: waits yielding the core, for the idle budget, without the
     * lock, so that the callers read the answers meanwhile; whether work came. The pump still
     * watches, so the last caller to stop watching leaves the answers that come next to it, and the
     * child need not ring; this JVM's threads wake it as if it slept ({@code parked}).
     */
    private boolean spunBesideCallers() {
        RingBuffer replies = child.shared().replies();
        int stage = lifecycle;
        parked = 1;
        wakeForCredit();
        if (hasWork()) { // what came before parked was written, whose wake() did nothing
            parked = 0;
            return true;
        }
        pumping.unlock();
        boolean work = false;
        try {
            long budget = idleSpin.next();
            long start = System.nanoTime();
            for (int spins = 1; !work && idleSpin.pause(start, spins, budget); spins++) {
                // What wakes a sleeping pump without wake() (a stop, the JVM's exit, a timer) is looked at too.
                work = parked == 0 || watching.get() == PUMP && replies.size() > 0 || exited || overtime || lifecycle != stage;
            }
        } finally {
            pumping.lock();
            parked = 0; // a wake that came meanwhile left the selector woken: its next select returns at once
        }
        return work;
    }

    /** Before the pump waits without the lock: the consumer's take that makes the current stream's next credit due wakes it. */
    private void wakeForCredit() {
        Entry current = current();
        if (current != null && current.output != null) {
            // That take, not every take: each wake is a system call.
            current.output.wakeOnConsumption(current.credited + creditStep(current), this::wake);
        }
    }

    private void idle() throws IOException {
        // Not while the request ring stays full: room comes when the child's reader catches up, which may take
        // long (a slow decode, a pause), and a yielding spin after each of the sleeps below would keep a core busy.
        boolean forCallers = carrying;
        carrying = false;
        if (fullAt < 0 && (forCallers || watching.get() == PUMP) && spunIntoWork(forCallers)) {
            return;
        }
        if (fullAt < 0 && watching.get() != PUMP && spunBesideCallers()) {
            return;
        }
        SharedFile shared = child.shared();
        parked = 1; // before it stops watching: a caller that then finds nobody watching wakes it (CallersFeed.stopped)
        if (watching.addAndGet(-PUMP) == 0) {
            shared.park(SharedFile.Side.PARENT);
        } // else the last caller to stop watching sets the word
        boolean full = fullAt >= 0;
        if (full) {
            shared.wantRoom(true);
        }
        wakeForCredit();
        if (hasWork()) {
            watching.addAndGet(PUMP);
            parked = 0;
            shared.awake(SharedFile.Side.PARENT);
            if (full) {
                shared.wantRoom(false);
            }
            return;
        }
        long idleNanos = backend.retirement().idleNanos();
        long sleepMillis; // 0: until woken
        if (full) {
            sleepMillis = FULL_RING_WAIT_MILLIS; // woken sooner by the child's ring for room, or by a reply
        } else if (successor != null && successor.socket() == null) { // to give up on it if it does not start in time
            long left = TimeUnit.NANOSECONDS.convert(backend.settings().startTimeout()) - (System.nanoTime() - successorLaunched);
            sleepMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(left) + 1);
        } else if (idleNanos >= 0 && idleSince != 0) {
            long left = idleNanos - (System.nanoTime() - idleSince);
            sleepMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(left) + 1); // once, to retire it
        } else {
            sleepMillis = 0;
        }
        pumping.unlock(); // callers watching read the answers while it sleeps
        try {
            selector.select(sleepMillis);
        } finally {
            pumping.lock();
            watching.addAndGet(PUMP);
        }
        parked = 0;
        if (full) {
            shared.wantRoom(false);
        }
        shared.awake(SharedFile.Side.PARENT);
        if (!selector.selectedKeys().isEmpty()) {
            selector.selectedKeys().clear();
            if (!Doorbell.drain(child.socket(), scratch)) {
                socketEnded = true;
            }
            if (successor != null && successor.socket() != null && !Doorbell.drain(successor.socket(), scratch)) {
                successorEnded = true; // its end would keep the selector awake: retire() replaces it
            }
        }
    }

    /** Moves tasks from the outbox (after those put back) into the request ring while it has room. */
    private boolean send() {
        boolean wrote = false;
        for (Entry entry; sentToChild < taskLimit && (entry = retry.isEmpty() ? outbox.poll() : retry.pollFirst()) != null; ) {
            if (entry.execution.isDone()) { // cancelled, or failed from outside, before it was sent
                settle(entry);
                continue;
            }
            if (!writeRun(child, entry)) {
                fullAt = child.shared().requests().consumerPosition(); // see claim()
                retry.addFirst(entry); // the ring is full: the child is busy; replies make room
                break;
            }
            wrote = true;
        }
        collectSent();
        if (wrote && child.shared().mustRing(SharedFile.Side.CHILD) && !Doorbell.ring(child.socket())) {
            socketEnded = true; // the JVM is dying: the loop sees to it
        }
        return wrote;
    }

    private boolean idleExpired() {
        long idleNanos = backend.retirement().idleNanos();
        return idleNanos >= 0 && idleSince != 0 && successor == null && lifecycle == OPEN
                && System.nanoTime() - idleSince >= idleNanos;
    }

    /**
     * Retires the current JVM for a fresh one when it reached its task limit or idled too long
     * after tasks; see {@link Retirement} for the hand-over.
     *
     * @return whether it did something
     */
    private boolean retire() throws IOException {
        if (successor == null) {
            boolean full = sentToChild >= taskLimit && (!outbox.isEmpty() || !retry.isEmpty() || lifecycle == OPEN);
            if (!full && !(idleExpired() && inFlight.isEmpty())) {
                return false;
            }
            try {
                successor = launchJvm();
                successorLaunched = System.nanoTime();
            } catch (StartFailure failure) {
                backend.died(failure.getMessage()); // at the limit, this stops the worker; else it tries again
                return false;
            }
            idleSince = 0;
            return true;
        }
        if (!successor.accept()) {
            boolean late = System.nanoTime() - successorLaunched > TimeUnit.NANOSECONDS.convert(backend.settings().startTimeout());
            if (late) {
                successor.kill("it was not ready within " + backend.settings().startTimeout());
                successorLost("was not ready within " + backend.settings().startTimeout());
                return true;
            }
            if (!successor.process().isAlive()) {
                successorLost("exited before it was ready");
                return true;
            }
            return false;
        }
        if (successorEnded || !successor.process().isAlive()) {
            successorLost("died after it was ready, before it took over");
            return true;
        }
        if (!inFlight.isEmpty() || !sent.isEmpty()) {
            return false; // the retiring JVM finishes the tasks it was sent
        }
        shutGate(); // no dispatch writes to the retiring JVM from now on
        collectSent();
        if (!inFlight.isEmpty()) {
            openGate();
            return false; // one did, just before
        }
        if (!alive(successor)) { // its end may not have woken the pump yet: the queue must not go to a dead JVM
            successorLost("died after it was ready, before it took over");
            openGate();
            return true;
        }
        ChildProcess retired = child;
        write(retired, Child.STOP, 0, -1);
        retired.socket().keyFor(selector).cancel(); // its end must not wake the pump
        child = successor;
        successor = null;
        exited = false;
        socketEnded = false;
        stopSent = false;
        fresh();
        openGate();
        Thread.ofVirtual().name(name + "-retired").start(() -> {
            retired.awaitExit(RETIRE_GRACE); // it closes its task-arg values, then exits; killed if it lingers
            retired.close();
        });
        return true;
    }

    /**
     * The successor did not start in time or died before taking over: that counts as a death, as
     * any unexpected one, and the next {@link #retire()} launches another (the queue waits for it).
     */
    private void successorLost(String what) {
        ChildProcess failed = successor;
        successor = null;
        successorEnded = false;
        failed.awaitExit(STOP_GRACE);
        String message = name + "'s successor JVM (pid " + failed.pid() + ") " + what + ", with " + failed.exitDescription()
                + ". " + failed.lastOutput();
        failed.close();
        backend.died(message);
    }

    /**
     * Asks the child to stop the tasks cancelled from outside that it has not answered yet: it
     * cancels its own execution, which interrupts the run and fires its signals, as on a thread.
     */
    private boolean sendCancels() {
        boolean sent = false;
        for (Entry entry; (entry = cancelled.peek()) != null; ) {
            if (entry.seq != 0 && !entry.settled && !entry.cancelSent && inFlight.contains(entry)) {
                if (!write(Child.CANCEL, entry.seq)) {
                    break; // the ring is full: again after the replies
                }
                entry.cancelSent = true;
                sent = true;
            }
            cancelled.poll(); // not sent yet (skipped when it comes), or already answered
        }
        return sent;
    }

    /** Tells the child of the fired signals of the tasks it runs or has queued; nothing for the others. */
    private boolean sendSignals() {
        boolean sent = false;
        for (Entry entry; (entry = signalled.peek()) != null; ) {
            if (entry.sentTo == child && !entry.settled) {
                Object[] args = entry.execution.invocation().args();
                for (int i = 0; i < args.length; i++) {
                    String reason = args[i] instanceof Signal signal ? reasonOf(signal) : null;
                    if (reason != null && (entry.firedSent & 1 << i) == 0) {
                        if (!writeSignal(entry.seq, i, reason)) {
                            return sent; // the ring is full: again after the replies
                        }
                        entry.firedSent |= 1 << i;
                        sent = true;
                    }
                }
            }
            signalled.poll(); // told, not sent yet (looked at again when it is), or answered
        }
        return sent;
    }

    /** A user's own signal may throw: read so, it has not fired (its task is not told, but the pump goes on). */
    private String reasonOf(Signal signal) {
        try {
            return signal.reason();
        } catch (RuntimeException failed) {
            LOG.log(System.Logger.Level.WARNING, () -> name + ": reading the reason of a task's signal failed", failed);
            return null;
        }
    }

    private boolean writeSignal(long seq, int position, String reason) {
        byte[] utf8 = Codec.crossingReason(reason).getBytes(StandardCharsets.UTF_8);
        RingBuffer requests = child.shared().requests();
        int at = claim(requests, Child.SIGNAL, Long.BYTES + Integer.BYTES + utf8.length);
        if (at < 0) {
            return false;
        }
        requests.buffer().putLong(at, seq);
        requests.buffer().putInt(at + Long.BYTES, position);
        requests.buffer().putBytes(at + Long.BYTES + Integer.BYTES, utf8);
        requests.commit(at);
        if (child.shared().mustRing(SharedFile.Side.CHILD) && !Doorbell.ring(child.socket())) {
            socketEnded = true;
        }
        return true;
    }

    /**
     * The current streaming task whose consumer has taken enough since its last credit that the
     * child should hear of it: a quarter of the high-water mark, so the producer, held at the mark,
     * goes on well before the consumer runs dry.
     */
    private Entry creditDue() {
        Entry current = current();
        if (current == null || current.output == null || current.execution.isDone()) {
            return null;
        }
        return current.output.consumedCount() - current.credited >= creditStep(current) ? current : null;
    }

    private static long creditStep(Entry streaming) {
        return Math.max(1, streaming.output.highWaterMark() / 4);
    }

    private boolean sendCredit() {
        Entry entry = creditDue();
        if (entry == null) {
            return false;
        }
        long consumed = entry.output.consumedCount();
        if (!write(Child.CREDIT, entry.seq, consumed)) {
            return false; // the ring is full: again after the replies
        }
        entry.credited = consumed;
        return true;
    }

    /** Opens the stream arguments of the task the child now runs, and starts feeding them. */
    private void feed(Entry entry) {
        Object[] args = entry.execution.invocation().args();
        StreamFeeder[] feeders = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof dev.moroutine.internal.dispatch.StreamArg) {
                if (feeders == null) {
                    feeders = new StreamFeeder[args.length];
                }
                feeders[i] = new StreamFeeder(entry.execution.binding(i), entry.seq, i, group.highWaterMark(), this::wake);
            }
        }
        entry.feeders = feeders != null ? feeders : NO_FEEDERS;
        if (feeders == null) {
            return;
        }
        for (StreamFeeder feeder : feeders) {
            if (feeder != null) {
                try {
                    feeder.start(this, name);
                    feeding.add(feeder);
                } catch (RuntimeException cannotOpen) {
                    entry.execution.completeExceptionally(cannotOpen);
                    cancelled.offer(entry);
                    return;
                }
            }
        }
    }

    private boolean feedsWaiting() {
        for (StreamFeeder feeder : feeding) {
            if (!feeder.queue.isEmpty() || !feeder.carried.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Moves what the feeders have queued into the request ring: items, then the end or the failure. */
    private boolean sendFeeds() {
        boolean sent = false;
        Entry owner = current();
        for (Iterator<StreamFeeder> it = feeding.iterator(); it.hasNext(); ) {
            StreamFeeder feeder = it.next();
            if (feeder.ended || owner == null || owner.seq != feeder.seq || owner.settled) {
                it.remove(); // its task was answered, failed or stopped, or its run ended
                continue;
            }
            int n = 0;
            while (n < feedBatch.length && !feeder.carried.isEmpty()) {
                feedBatch[n++] = feeder.carried.poll();
            }
            Object last = null;
            for (Object item; n < feedBatch.length && (item = feeder.queue.peek()) != null; ) {
                if (item == StreamFeeder.END || item instanceof StreamFeeder.Failed) {
                    last = item;
                    break;
                }
                feedBatch[n++] = item;
                feeder.queue.poll();
            }
            if (n > 0) {
                int written = writeItems(feeder, n, owner);
                for (int i = n - 1; i >= written && written >= 0; i--) {
                    feeder.carried.addFirst(feedBatch[i]); // the ring is full: they go first on the next pass
                }
                java.util.Arrays.fill(feedBatch, 0, n, null);
                if (written < 0) {
                    it.remove();
                    continue;
                }
                sent |= written > 0;
                if (written < n) {
                    break; // the ring is full: again after the replies
                }
            }
            if (last != null) {
                boolean end = last == StreamFeeder.END;
                byte[] failure = end ? new byte[0] : backend.codec().encodeFailure(((StreamFeeder.Failed) last).failure());
                RingBuffer requests = child.shared().requests();
                int at = claim(requests, end ? Child.ARG_END : Child.ARG_FAILED, Long.BYTES + Integer.BYTES + failure.length);
                if (at < 0) {
                    break; // full: again after the replies
                }
                requests.buffer().putLong(at, feeder.seq);
                requests.buffer().putInt(at + Long.BYTES, feeder.position);
                requests.buffer().putBytes(at + Long.BYTES + Integer.BYTES, failure);
                requests.commit(at);
                feeder.queue.poll();
                feeder.ended = true;
                it.remove();
                sent = true;
            }
        }
        if (sent && child.shared().mustRing(SharedFile.Side.CHILD) && !Doorbell.ring(child.socket())) {
            socketEnded = true;
        }
        return sent;
    }

    /**
     * Writes {@code n} items of {@link #feedBatch} as messages while the ring has room. It never
     * waits for room: the child's reader, which frees it, may itself be waiting for room in the reply
     * ring (to send a stream argument's credit), which only this thread empties.
     *
     * @return how many were written, or -1 if the task was failed (an item that cannot cross)
     */
    private int writeItems(StreamFeeder feeder, int n, Entry owner) {
        RingBuffer requests = child.shared().requests();
        int header = Long.BYTES + 2 * Integer.BYTES;
        int most = requests.maxMsgLength() - header;
        for (int from = 0; from < n; ) {
            int count = n - from;
            int encoded;
            for (;;) {
                feedBuffer.writerIndex(0);
                try {
                    encoded = backend.codec().encodeItems(feedBatch, from, count, feedBuffer, StreamForwarder.BYTE_BUDGET,
                            owner.execution.invocation(), name);
                } catch (IllegalArgumentException cannotCross) {
                    owner.execution.completeExceptionally(cannotCross);
                    cancelled.offer(owner);
                    return -1;
                }
                if (feedBuffer.writerIndex() <= most) {
                    break;
                }
                if (encoded == 1) {
                    owner.execution.completeExceptionally(new IllegalArgumentException("an item of stream argument "
                            + (feeder.position + 1) + " of " + owner.execution.invocation() + " is " + feedBuffer.writerIndex()
                            + " bytes encoded, more than the " + most + " that isolated worker " + name + " takes in one message"));
                    cancelled.offer(owner);
                    return -1;
                }
                count = encoded - 1;
            }
            int length = feedBuffer.writerIndex();
            int at = claim(requests, Child.ARG_ITEMS, header + length);
            if (at < 0) {
                return from;
            }
            MutableDirectBuffer buffer = requests.buffer();
            buffer.putLong(at, feeder.seq);
            buffer.putInt(at + Long.BYTES, feeder.position);
            buffer.putInt(at + Long.BYTES + Integer.BYTES, encoded);
            buffer.putBytes(at + header, feedBuffer.getHeapMemory(), 0, length);
            requests.commit(at);
            if (child.shared().mustRing(SharedFile.Side.CHILD) && !Doorbell.ring(child.socket())) {
                socketEnded = true;
                return -1;
            }
            from += encoded;
        }
        return n;
    }

    /** Sends a message about a task (0: none); {@code false} if the ring is full. */
    private boolean write(int type, long seq) {
        return write(child, type, seq, -1);
    }

    /** Sends a message about a task, with a number unless it is -1; {@code false} if the ring is full. */
    private boolean write(int type, long seq, long number) {
        return write(child, type, seq, number);
    }

    private boolean write(ChildProcess target, int type, long seq, long number) {
        RingBuffer requests = target.shared().requests();
        int at = claim(requests, type, number < 0 ? Long.BYTES : 2 * Long.BYTES);
        if (at < 0) {
            return false;
        }
        requests.buffer().putLong(at, seq);
        if (number >= 0) {
            requests.buffer().putLong(at + Long.BYTES, number);
        }
        requests.commit(at);
        if (target.shared().mustRing(SharedFile.Side.CHILD) && !Doorbell.ring(target.socket())) {
            socketEnded = true;
        }
        return true;
    }

    /** {@code entry} is now the current task: the child runs it from about now (again: nothing changes). */
    private void started(Entry entry) {
        running = entry.execution;
        if (entry.feeders == null) {
            feed(entry);
        }
        if (entry.timeoutNanos >= 0 && entry.timer == null) {
            entry.timer = DelayedActions.schedule(() -> timedOut(entry), entry.timeoutNanos);
        }
    }

    /** On the timer thread: fails the task at once; the pump kills its JVM unless it answered first. */
    private void timedOut(Entry entry) {
        entry.timedOut = true;
        Duration limit = Duration.ofNanos(entry.timeoutNanos);
        entry.execution.completeExceptionally(new TimeoutException(entry.execution.invocation() + " did not finish within"
                + " its timeout of " + limit + " on " + this + ", so its JVM was killed and replaced; give it more time with"
                + " withTimeout(…) on the task or withTaskTimeout(…) on the pool"));
        overtime = true;
        selector.wakeup();
    }

    private void onReply(int type, MutableDirectBuffer buffer, int index, int length) {
        long seq = buffer.getLong(index);
        if (type == Child.ARG_CREDIT) {
            Entry current = current();
            int position = buffer.getInt(index + Long.BYTES);
            if (current != null && current.seq == seq && current.feeders != null && position < current.feeders.length
                    && current.feeders[position] != null) {
                current.feeders[position].credit(buffer.getLong(index + Long.BYTES + Integer.BYTES));
            }
            return;
        }
        if (type == Child.ITEMS) {
            onItems(seq, buffer, index, length);
            return;
        }
        if (type == Child.RUN_ENDED) {
            Entry entry = inFlight(seq);
            if (entry != null && !entry.runEnded) { // else answered first
                entry.runEnded = true;
                if (entry.timer != null) {
                    entry.timer.cancel(false); // a timeout covers the run; its items are on their way
                }
                advance();
            }
            return;
        }
        Entry entry = answered(seq);
        if (entry == null) {
            return;
        }
        Execution<?> execution = entry.execution;
        int payloadAt = index + Long.BYTES;
        int payloadLength = length - Long.BYTES;
        try {
            switch (type) {
                case Child.RESULT -> {
                    Object value = backend.codec().decodeValue(replyBytes.copy(buffer, payloadAt, payloadLength));
                    if (entry.output != null) {
                        entry.output.finish(); // its items came before: the consumer takes them, then the end
                    }
                    complete(execution, value);
                }
                case Child.FAILURE -> {
                    byte[] payload = new byte[payloadLength];
                    buffer.getBytes(payloadAt, payload);
                    Throwable failure = backend.codec().decodeFailure(payload);
                    // As a thread worker stores it: a CancellationException the function threw is a failure, not a cancellation.
                    execution.completeExceptionally(failure instanceof CancellationException ? new CompletionException(failure) : failure);
                }
                default -> execution.cancel(buffer.getStringWithoutLengthUtf8(payloadAt, payloadLength));
            }
        } catch (RuntimeException undecodable) {
            execution.completeExceptionally(new IllegalStateException("the answer of " + execution.invocation() + " from " + name
                    + " could not be decoded: " + undecodable, undecodable));
        }
    }

    /**
     * Items of a streaming task (the current one, or one whose run ended): into its output, which
     * has room for them (see {@link StreamForwarder}).
     */
    private void onItems(long seq, MutableDirectBuffer buffer, int index, int length) {
        Entry entry = inFlight(seq);
        if (entry == null || entry.output == null || entry.execution.isDone()) {
            return; // stopped: its output has ended, and the child is told or gone
        }
        int count = buffer.getInt(index + Long.BYTES);
        int bytes = length - StreamForwarder.HEADER;
        Pipe<Object> output = entry.output;
        try {
            Object[] items = backend.codec().decodeItems(replyBytes.copy(buffer, index + StreamForwarder.HEADER, bytes), count);
            if (output.room() < count) { // never, while the child keeps to its credit: the pump must not wait
                throw new IllegalStateException("isolated worker " + name + " sent more items of " + entry.execution.invocation()
                        + " than its high-water mark of " + output.highWaterMark() + " allows");
            }
            output.emitRun(items, count); // one fence and one look at the consumer for the batch, not one an item
        } catch (CancellationException closed) {
            // the consumer closed the stream: its producer's cancellation is on its way to the child
        } catch (RuntimeException undecodable) {
            entry.execution.completeExceptionally(new IllegalStateException("an item of the stream of "
                    + entry.execution.invocation() + " from " + name + " could not be decoded: " + undecodable, undecodable));
            cancelled.offer(entry); // the child's producer must stop too
        }
    }

    @SuppressWarnings("unchecked") // the result of the moroutine's function, of its R
    private static <R> void complete(Execution<R> execution, Object value) {
        execution.complete((R) value);
    }

    /** The task in flight with this sequence number, or null. */
    private Entry inFlight(long seq) {
        collectSent(); // its dispatch may have written it since the pump last looked
        for (Entry entry : inFlight) {
            if (entry.seq == seq) {
                return entry;
            }
        }
        return null;
    }

    /** The task the child runs or is about to start: the first in flight whose run has not ended (see "In flight"). */
    private Entry current() {
        for (Entry entry : inFlight) {
            if (!entry.runEnded) {
                return entry;
            }
        }
        return null;
    }

    /** After an answer or the end of a run: the current task starts, if there is one. */
    private void advance() {
        collectSent();
        Entry next = current();
        if (next != null) {
            started(next);
        } else {
            running = null;
            if (inFlight.isEmpty()) {
                idleSince = System.nanoTime();
            }
        }
    }

    /**
     * Takes the entry of an answer out of the tasks in flight (the first, but for a stream whose run
     * ended, or a task the child refused on arrival).
     */
    private Entry answered(long seq) {
        Entry entry = inFlight(seq);
        if (entry != null) {
            inFlight.removeFirstOccurrence(entry);
            settle(entry);
            advance();
        }
        return entry;
    }

    private void settle(Entry entry) {
        entry.settled = true;
        entry.execution.onSettled(null); // a future the caller keeps must not keep the entry: its request, its JVM, this worker
        if (entry.signals != null) {
            closeAll(entry.signals);
        }
        if (entry.feeders != null) {
            for (StreamFeeder feeder : entry.feeders) {
                if (feeder != null) {
                    feeder.stop();
                }
            }
        }
        if (entry.timer != null) {
            entry.timer.cancel(false);
        }
        settled = settled + 1; // the pump is the only writer
    }

    /**
     * The JVM is gone: settles what it had and starts a new one, unless the worker is stopping or
     * the pool is in a crash loop.
     *
     * @return {@code false} once the worker has stopped
     */
    private boolean replaceJvm() throws IOException {
        ChildProcess dead = child;
        shutGate(); // its file is unmapped below
        collectSent();
        dead.awaitExit(STOP_GRACE);
        SharedFile.readAllLeft(dead.shared().replies(), this::onReply); // replies written before it died: those tasks finished
        boolean expected = stopSent || lifecycle == STOPPED;
        String how = "(pid " + dead.pid() + ") " + (dead.killedBecause() != null ? "was killed because " + dead.killedBecause()
                + ", with " : "died with ") + dead.exitDescription();
        String crash = expected || dead.killedBecause() != null ? null : backend.died(name + "'s " + how);
        String aftermath = expected ? "the worker was stopping, so it was not replaced"
                : crash != null ? crash
                : "a new JVM replaces it";
        // Streams whose run ended lose their items on the way, the current task its run; the others never started.
        for (Entry started; (started = inFlight.pollFirst()) != null; ) {
            settle(started);
            String when = started.runEnded ? " while the items of " + started.execution.invocation() + " were on their way"
                    + " (its function had ended)" : " while running " + started.execution.invocation();
            started.execution.completeExceptionally(new WorkerDiedException(name + "'s JVM " + how + when + "; " + aftermath
                    + ". " + dead.lastOutput(), null));
            if (!started.runEnded) {
                break;
            }
        }
        for (Iterator<Entry> it = inFlight.descendingIterator(); it.hasNext(); ) {
            Entry unstarted = it.next();
            if (unstarted.timer != null) {
                unstarted.timer.cancel(false);
                unstarted.timer = null;
            }
            retry.addFirst(unstarted);
        }
        inFlight.clear();
        running = null;
        dead.close();
        child = null;
        if (expected || crash != null || lifecycle == STOPPED) {
            abandonAll();
            return false;
        }
        for (;;) {
            try {
                // A retiring JVM's successor takes over, unless awaitStarted finds it dead too (one more death).
                ChildProcess next = successor != null ? successor : launchJvm();
                successor = null;
                successorEnded = false;
                child = awaitStarted(next);
                fresh();
                openGate();
                return true;
            } catch (StartFailure failure) { // counts as one more death
                if (backend.died(failure.getMessage()) != null || lifecycle == STOPPED) {
                    abandonAll();
                    return false;
                }
            }
        }
    }

    /** Forced stop: everything not answered is cancelled (or failed, in a crash loop); the JVM is asked to stop, then killed. */
    private void terminate() throws IOException {
        abandonAll();
        write(Child.TERMINATE, 0);
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        while (child.process().isAlive() && !socketEnded) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                child.kill(stopReason);
                break;
            }
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            if (!selector.selectedKeys().isEmpty()) {
                selector.selectedKeys().clear();
                socketEnded = !Doorbell.drain(child.socket(), scratch);
            }
        }
        child.awaitExit(STOP_GRACE);
        child.close();
        child = null;
    }

    /** Fails or cancels every task not yet answered, including those still being admitted. */
    private void abandonAll() {
        shutGate();
        collectSent();
        for (Entry entry; (entry = inFlight.pollFirst()) != null; ) {
            abandon(entry, " while this task was running in the worker's JVM");
        }
        running = null;
        while (settled < admitted) {
            Entry entry = retry.isEmpty() ? outbox.poll() : retry.pollFirst();
            if (entry != null) {
                abandon(entry, " before this task started");
            } else {
                Thread.onSpinWait(); // a dispatch between its count and its offer
            }
        }
    }

    private void abandon(Entry entry, String when) {
        settle(entry);
        String loop = crashLoop;
        if (loop != null) {
            entry.execution.completeExceptionally(new WorkerDiedException(name + ": " + loop, null));
        } else {
            entry.execution.cancel(stopReason + when);
        }
    }
}
