package dev.moroutine.isolated.internal;

import dev.moroutine.AbortController;
import dev.moroutine.Signal;
import dev.moroutine.internal.call.Definition;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.Feed;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.SpinBudget;
import dev.moroutine.internal.dispatch.StreamArg;
import dev.moroutine.internal.dispatch.ThreadWorker;
import dev.moroutine.internal.dispatch.WorkerGroup;
import dev.moroutine.internal.shared.SharedFiles;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * The main class of a worker JVM. Its tasks run on a {@link ThreadWorker}, exactly as on a pool of
 * threads (task-args resolved and cached there, closed when it stops); this class only feeds it.
 *
 * <h2>Threads</h2>
 * Two threads read the request ring, one at a time (whoever holds {@code reading}): the main
 * thread, the <em>reader</em>, and the worker thread while it waits for a task (a
 * {@link Feed}). Whoever reads takes what waits, up to {@link #READ_BATCH} requests at a time,
 * decodes each task ({@link Codec}: the moroutine is found by its id, {@link Definition#find}; a
 * task-arg is the same invocation for the same key, so the worker's cache hits) and dispatches it
 * to the worker thread, which, if it read the task itself, takes it next: a task that comes to an
 * idle worker JVM crosses no thread of its own. The worker thread's batch ends after a task (at
 * once if the reader dispatched one it has not taken yet): it runs the task before anything
 * after it is decoded, which may take long (the next task's class initializer, a large argument,
 * a stream argument's items) while the task's timer runs. The reader
 * is needed while the worker thread runs a task (a cancellation, a signal, credit or the items of
 * a stream argument must reach it then), so it reads then, and, once it has found nothing to read,
 * leaves the ring to the worker thread while that waits.
 *
 * <p>Who watches the ring is in {@code watching}: the reader while awake, the worker thread while
 * it waits. The reader with nothing to read yields for a while (reading again once there is
 * something and the worker thread does not watch: awake as the worker thread takes a task, it reads
 * what follows that task without being woken), then sleeps in a {@link Selector} on the doorbell
 * socket; the worker thread stops watching when it
 * takes a task or parks. The one who leaves nobody watching announces it in the shared file, then
 * looks at the ring once more (see {@link SharedFile}): the parent rings the doorbell for its next
 * request, and a request already there wakes the reader at once ({@link Selector#wakeup()}). Each
 * watcher joins with a write that tells the parent not to ring. A ring nobody needed only wakes the
 * reader for nothing. Whoever reads rings the parent when it has made room in a request ring the
 * parent's pump sleeps on, and answers a task it could not decode; a stop it reads ends the
 * reading, and the reader stops the worker. The worker thread writes each reply to the reply ring as it
 * completes the task, before it takes the next one, and rings the parent's doorbell if the
 * parent's pump sleeps. A streaming task is answered by its {@link StreamForwarder} once its last
 * items have crossed, which may be after the next task started (the worker thread never waits for
 * them); so the worker thread, as it leaves a streaming task's run and before it takes the next
 * task, writes {@link #RUN_ENDED}. A forwarder may also answer before the worker thread has left
 * the run (the execution's completion runs the answer on the worker thread, or a stopper completes
 * it while the function runs on): that answer is held ({@code StreamRun}) and the worker thread
 * writes it instead, as it leaves the run.
 *
 * <p>When the parent asks it to cancel a task ({@link #CANCEL}), the reader cancels the execution
 * as a thread pool's caller would, which interrupts the run and fires its signals; the run may go
 * on all the same (a function that ignores interrupts), and the parent counts the task as running,
 * its timer going, until the answer. So that answer, made while the execution completes, waits for
 * the worker thread to leave the run ({@link ThreadWorker.Leaving}), which writes it before it takes
 * the next task (see {@code CancelledRun}). Each task is thus answered once, and only once its run
 * has ended; and of the tasks neither answered nor reported ended, only the first can have started.
 * The reply ring is written by several threads (the worker thread, the forwarders, the reader), but
 * Agrona's ring delivers messages in the order they were claimed, so whatever the worker thread
 * wrote before it took a task reaches the parent before anything that task caused.
 *
 * <p>A signal argument stands here as a controller of this JVM's, which the reader fires when the
 * parent says the caller's signal fired ({@link #SIGNAL}); its actions run on the reader. A daemon
 * thread reads stdin, which nothing ever writes: its end means the parent is gone, and the JVM
 * halts at once.
 *
 * <p>The protocol never uses stdout or stderr: both are the user's, forwarded by the parent.
 */
public final class Child implements Codec.Calls, Feed {

    /** Request: run a task. Its payload is the sequence number, then the encoded invocation. */
    static final int RUN = 1;
    /** Request: finish the queued tasks, close the task-arg values and exit. */
    static final int STOP = 2;
    /** Request: cancel the tasks, interrupting the running one, close the task-arg values and exit. */
    static final int TERMINATE = 3;
    /** Request: cancel one task (its future was cancelled in the parent), interrupting it if it runs. */
    static final int CANCEL = 4;
    /** Request: run a streaming task. Its payload is the sequence number, the stream's high-water mark (int32), then the encoded invocation. */
    static final int RUN_STREAM = 5;
    /**
     * Request: the caller's consumer of a stream has taken this many items in all (int64, after the
     * sequence number): see {@link StreamForwarder}.
     */
    static final int CREDIT = 6;
    /** Request: items of a stream argument: the sequence number, the argument's position (int32), their count (int32), then each encoded. */
    static final int ARG_ITEMS = 7;
    /** Request: a stream argument has ended: the sequence number, the position (int32). */
    static final int ARG_END = 8;
    /** Request: a stream argument has failed: the sequence number, the position (int32), then the encoded failure. */
    static final int ARG_FAILED = 9;
    /**
     * Request: a signal argument has fired in the caller's JVM: the sequence number, the position
     * (int32), then the reason in UTF-8.
     */
    static final int SIGNAL = 10;
    /** Reply: the task's result. Each reply's payload is the sequence number, then its own. */
    static final int RESULT = 1;
    /** Reply: the task's failure, a {@link RemoteFailure}. */
    static final int FAILURE = 2;
    /** Reply: the task was cancelled here (the JVM is stopping); the payload is the reason, in UTF-8. */
    static final int CANCELLED = 3;
    /** Reply: items of a streaming task, in order: the sequence number, their count (int32), then each Fory-encoded. */
    static final int ITEMS = 4;
    /** Reply: the function has taken this many items of a stream argument: the sequence number, the position (int32), the count (int64). */
    static final int ARG_CREDIT = 5;
    /**
     * Reply: a streaming task's run has ended (its function returned or threw), its items perhaps
     * still on their way; nothing after the sequence number. Written as the worker thread leaves the
     * run, unless an answer held until then is written instead (it says as much).
     */
    static final int RUN_ENDED = 6;

    /** The system property that names the parent's directory of shared-memory files, which this JVM deletes if the parent dies. */
    public static final String SHARED_DIRECTORY = "moroutine.isolated.sharedDirectory";
    /** The parent, as it was at the start (once it dies, the OS gives this JVM another). */
    private static final java.util.Optional<ProcessHandle> PARENT = ProcessHandle.current().parent();

    /** The reader, in {@code watching}. */
    private static final int READER = 1;
    /** The worker thread, in {@code watching}. */
    private static final int WORKER = 2;
    /** How long the reader and the worker thread wait, yielding, before they sleep: see {@link SpinBudget#yielding}. */
    private static final int SPIN_NANOS = 200_000;
    /**
     * The most requests one read takes: the reader, woken while a pipelining parent keeps the ring
     * full, takes what waits in one go, and checks the parent's wish for room once per batch.
     */
    private static final int READ_BATCH = 64;
    private static final byte[] NOTHING = new byte[0];
    /** How long a terminated worker may take to close its values before the JVM exits anyway. */
    private static final Duration TERMINATE_GRACE = Duration.ofMillis(500);

    private final String name;
    private final Codec codec;
    private final SharedFile shared;
    private final SocketChannel socket;
    /** Where the reader sleeps: the doorbell socket's bytes, or the worker thread's {@link Selector#wakeup()}. */
    private final Selector selector;
    private final SpinBudget idleSpin = SpinBudget.yielding(SPIN_NANOS);
    /**
     * How a thread here waits for a stream's items, which cross from or to the parent: a forwarder
     * ({@link StreamForwarder}), a function reading a stream argument ({@link InboundStream}).
     */
    private final SpinBudget streamSpin = SpinBudget.yielding(SPIN_NANOS);
    /**
     * Where the forwarders run: platform threads, which may wait yielding (a virtual thread that
     * yields keeps its carrier's core), kept a while for the next stream, so a stream starts none.
     */
    private final ExecutorService forwarders;
    private final ByteBuffer bell = ByteBuffer.allocate(64);
    /** Held (true) by the thread that reads the request ring: the reader, or the worker thread while it waits. */
    private final AtomicBoolean reading = new AtomicBoolean();
    /** Who watches the request ring now: {@link #READER}, {@link #WORKER}, both or none (see the class comment). */
    private final AtomicInteger watching = new AtomicInteger(READER);
    // Owned by whoever holds reading.
    private final Map<String, Definition> definitions = new HashMap<>();
    private final Map<Long, Invocation> taskArgs = new HashMap<>();
    /** The tasks not answered yet, by sequence number: added by the reader, removed by whoever completes them. */
    private final Map<Long, Execution<Object>> unanswered = new ConcurrentHashMap<>();
    /** The streaming tasks not answered yet, by sequence number: their forwarders. */
    private final Map<Long, StreamForwarder> streams = new ConcurrentHashMap<>();
    /** The stream arguments of the tasks not answered yet, by sequence number, then position. */
    private final Map<Long, Map<Integer, InboundStream>> inbound = new ConcurrentHashMap<>();
    /** The signal arguments of the tasks not answered yet, by sequence number, then position: the reader fires them. */
    private final Map<Long, Map<Integer, AbortController>> signals = new ConcurrentHashMap<>();
    /** The tasks the parent asked to cancel, by sequence number, until the worker thread leaves their run. */
    private final Map<Long, CancelledRun> cancelledRuns = new ConcurrentHashMap<>();
    /** The streaming tasks dispatched to the worker thread, by sequence number, until it leaves their run. */
    private final Map<Long, StreamRun> streamRuns = new ConcurrentHashMap<>();
    /**
     * While the worker thread reads: whether it has read a task (1), which ends its reading, or not
     * (0); -1 while the reader reads. Owned by whoever holds {@code reading}.
     */
    private int tasksRead;
    /** The task being decoded. */
    private long decoding;
    /** Where a task or a stream argument's items are decoded, by whoever holds {@code reading}. */
    private final MessageBytes messageBytes = new MessageBytes();
    /** {@link #STOP} or {@link #TERMINATE} once read; then nothing more is read. */
    private volatile int stop;
    /** Set before its thread starts, which publishes it to that thread; the reader and the forwarders start later. */
    private ThreadWorker worker;

    private Child(String name, Codec codec, SharedFile shared, SocketChannel socket) throws IOException {
        this.name = name;
        this.codec = codec;
        this.shared = shared;
        this.socket = socket;
        socket.configureBlocking(false);
        this.selector = Selector.open();
        socket.register(selector, SelectionKey.OP_READ);
        this.forwarders = Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name(name + "-stream-", 0).factory());
    }

    /**
     * Runs a worker JVM.
     *
     * @param args the private directory, the worker's name, its index, the stream high-water mark,
     *     then the names of the registered classes, in order
     * @throws Exception if it cannot start; its output says why, and the parent reports it
     */
    public static void main(String[] args) throws Exception {
        watchParent();
        Path directory = Path.of(args[0]);
        String name = args[1];
        int index = Integer.parseInt(args[2]);
        int highWaterMark = Integer.parseInt(args[3]);
        List<Class<?>> types = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            types.add(Class.forName(args[i], false, ClassLoader.getSystemClassLoader()));
        }
        Codec codec = new Codec(types, 2); // the reader and the worker thread
        SharedFile shared = SharedFile.open(directory.resolve("rings"));
        // Connecting is the last step before serving: the parent takes the connection as "ready".
        Child child = new Child(name, codec, shared, SocketChannel.open(UnixDomainSocketAddress.of(directory.resolve("bell"))));
        child.worker = ThreadWorker.telling(name, index, new Group(highWaterMark), SpinBudget.yielding(SPIN_NANOS),
                child::left, child);
        child.worker.start(); // after the write of worker: its thread's start publishes the child to it
        child.serve();
    }

    /**
     * A task the parent asked to cancel. Its execution completes at the cancellation, and its
     * answer with it, but the run may go on (a function that ignores interrupts): the parent counts
     * the task as running, with its timer, until the answer, so the answer waits until the worker
     * thread leaves the run, and the worker thread writes it before it takes the next task.
     */
    private static final class CancelledRun {
        final Execution<Object> execution;
        /** The answer, once its execution has completed it, cancelled. */
        final CompletableFuture<Answer> answer = new CompletableFuture<>();
        /** Guarded by this. */
        private boolean left;
        /** Guarded by this: the worker thread writes the answer (it left the run cancelled). */
        private boolean writtenOnLeaving;

        CancelledRun(Execution<Object> execution) {
            this.execution = execution;
        }

        /** The worker thread has left the run: whether it writes the answer (the run was cancelled; it comes, if not yet here). */
        synchronized boolean leave() {
            left = true;
            writtenOnLeaving = execution.isCancelled();
            return writtenOnLeaving;
        }

        /** The task's answer: whether its writer writes it at once (not cancelled, or the run was left before it was). */
        synchronized boolean answered(int type, byte[] payload) {
            if (!execution.isCancelled() || left && !writtenOnLeaving) {
                return true;
            }
            answer.complete(new Answer(type, payload));
            return false;
        }
    }

    /**
     * A streaming task's run, from its dispatch until the worker thread leaves it. The parent counts
     * a task as running, with its timer, until its answer or {@link #RUN_ENDED}, and starts the next
     * one then; so an answer its forwarder makes while the function still runs is held, and the
     * worker thread writes it as it leaves the run, before it takes the next task.
     */
    private static final class StreamRun {
        /** Guarded by this. */
        private boolean ended;
        /** Guarded by this: the answer made before the run ended. */
        private Answer held;

        /** The task's answer: whether its writer writes it at once (the run has ended). */
        synchronized boolean answered(int type, byte[] payload) {
            if (ended) {
                return true;
            }
            held = new Answer(type, payload);
            return false;
        }

        /** The worker thread has left the run: the answer it writes, or null (it writes {@link #RUN_ENDED}). */
        synchronized Answer end() {
            ended = true;
            return held;
        }
    }

    /** A reply kept for later. */
    private record Answer(int type, byte[] payload) {}

    /** The settings of the one pool this JVM's worker belongs to; timeouts are the parent's to enforce. */
    private record Group(int highWaterMark) implements WorkerGroup {
        @Override
        public Duration taskTimeout() {
            return null;
        }
    }

    /** Halts this JVM when its parent dies: the parent holds the other end of stdin, which the OS closes with it. */
    private static void watchParent() {
        Thread.ofPlatform().daemon().name("moroutine-parent-watch").start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing writes to stdin; only its end matters
                }
            } catch (IOException ended) {
                // ended too
            }
            parentGone();
        });
    }

    /** Halts this JVM, its parent gone; deletes the parent's shared-memory files first, which a parent killed outright left. */
    private static void parentGone() {
        String sharedFiles = System.getProperty(SHARED_DIRECTORY);
        if (sharedFiles != null && PARENT.map(Child::ended).orElse(true)) { // never a live parent's files
            SharedFiles.deleteDirectory(Path.of(sharedFiles));
        }
        Runtime.getRuntime().halt(1);
    }

    private static boolean ended(ProcessHandle process) {
        try {
            process.onExit().get(2, TimeUnit.SECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException alive) {
            return false;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private void serve() throws IOException, InterruptedException {
        RingBuffer requests = shared.requests();
        while (stop == 0) {
            if (!read(false)) {
                idle(requests);
            }
        }
        if (stop == STOP) {
            worker.drain("the pool was closed");
            worker.awaitStopped(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        } else {
            worker.forceStop("the pool was terminated");
            worker.awaitStopped(TERMINATE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
        System.exit(0);
    }

    /**
     * Reads the requests that wait, up to {@link #READ_BATCH}, unless another thread is reading, or
     * a stop was read (a stop ends the batch: nothing after it is read).
     *
     * @param oneTask whether the batch ends after a task, or at once if one is already queued (the
     *     worker thread reads: it runs the task before anything after it is decoded, which may take
     *     long: the next task's class initializer, a large argument, a stream argument's items)
     * @return whether it read any
     */
    private boolean read(boolean oneTask) {
        if (stop != 0 || !reading.compareAndSet(false, true)) {
            return false;
        }
        try {
            tasksRead = oneTask ? 0 : -1;
            // A task the reader dispatched since the worker thread last looked at its queue waits there: it runs first.
            if (stop != 0 || oneTask && worker.activeCount() > 0
                    || shared.requests().controlledRead(this::onRequest, READ_BATCH) == 0) {
                return false;
            }
        } finally {
            reading.set(false);
        }
        if (shared.mustRingForRoom() && !Doorbell.ring(socket)) {
            parentGone(); // the parent's pump slept on a full request ring: there is room now
        }
        return true;
    }

    /**
     * The reader found nothing to read: it waits, yielding, then sleeps. While the worker thread
     * watches, the ring is the worker thread's (it reads what comes until it takes a task) and the
     * reader reads again only once it stops watching (it took a task, or it parks): awake then, it
     * takes what follows that task without the worker thread having to wake it (a system call per
     * task of a pipelining parent).
     */
    private void idle(RingBuffer requests) {
        long budget = idleSpin.next();
        long start = System.nanoTime();
        for (int spins = 1; idleSpin.pause(start, spins, budget); spins++) {
            if (stop != 0 || requests.size() > 0 && (watching.get() & WORKER) == 0) {
                idleSpin.ended(start, budget, true);
                return;
            }
        }
        idleSpin.ended(start, budget, false);
        if (unwatch(READER)) {
            return; // a request came as it stopped watching
        }
        try {
            selector.select();
            selector.selectedKeys().clear();
        } catch (IOException failed) {
            parentGone();
        }
        if (!Doorbell.drain(socket, bell)) {
            parentGone();
        }
        watch(READER);
    }

    /** {@code who} watches the request ring from now on: the parent need not ring. */
    private void watch(int who) {
        watching.getAndUpdate(w -> w | who);
        shared.awake(SharedFile.Side.CHILD);
    }

    /**
     * {@code who} stops watching the request ring. If nobody watches now, the parent must ring the
     * doorbell for its next request; if a request came before it could know that, the reader is
     * woken (or, if it is the reader, goes on).
     *
     * @return whether the reader must read now (only for {@code who == READER}: the worker thread
     *     wakes the reader itself)
     */
    private boolean unwatch(int who) {
        if ((watching.updateAndGet(w -> w & ~who)) != 0) {
            return false;
        }
        shared.park(SharedFile.Side.CHILD);
        if (shared.requests().size() == 0 && stop == 0) {
            return false;
        }
        if (!shared.unpark(SharedFile.Side.CHILD)) {
            return false; // the parent rang: its byte wakes the reader
        }
        if (who == READER) {
            watching.getAndUpdate(w -> w | READER);
            return true;
        }
        selector.wakeup();
        return false;
    }

    @Override
    public void waiting() {
        watch(WORKER);
    }

    @Override
    public boolean poll() {
        try {
            return read(true);
        } catch (Throwable fault) {
            // A VirtualMachineError: the worker thread would die of it with WORKER set, and nobody would read the
            // requests again. The reader dies of it too, which ends this JVM: so does this, and the parent settles its tasks.
            System.err.println("[moroutine] " + name + ": reading a request failed, so this JVM stops");
            fault.printStackTrace();
            Runtime.getRuntime().halt(1);
            throw fault;
        }
    }

    @Override
    public void stopped() {
        unwatch(WORKER);
    }

    private ControlledMessageHandler.Action onRequest(int type, MutableDirectBuffer buffer, int index, int length) {
        if (stop != 0) {
            return ControlledMessageHandler.Action.ABORT; // nothing after a stop is read
        }
        if (tasksRead > 0) {
            // The worker thread runs its task first: what follows may take long to decode too (a stream argument's items).
            return ControlledMessageHandler.Action.ABORT;
        }
        if (tasksRead == 0 && (type == RUN || type == RUN_STREAM)) {
            tasksRead = 1;
        }
        handle(type, buffer, index, length);
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private void handle(int type, MutableDirectBuffer buffer, int index, int length) {
        long seq = buffer.getLong(index);
        if (type == CANCEL) {
            // Registered while the task is surely unanswered (answer() takes it out of unanswered first), so its answer sees it.
            Execution<Object> execution = unanswered.computeIfPresent(seq, (key, running) -> {
                cancelledRuns.put(key, new CancelledRun(running));
                return running;
            });
            if (execution != null) {
                firing(() -> execution.cancel(true));
                if (!execution.isCancelled()) {
                    cancelledRuns.remove(seq); // it completed first: its answer goes as any other
                }
            }
            return;
        }
        if (type == CREDIT) {
            StreamForwarder stream = streams.get(seq);
            if (stream != null) {
                stream.credit(buffer.getLong(index + Long.BYTES));
            }
            return;
        }
        if (type == SIGNAL) {
            Map<Integer, AbortController> signalsOfTask = signals.get(seq);
            AbortController controller = signalsOfTask == null ? null : signalsOfTask.get(buffer.getInt(index + Long.BYTES));
            if (controller != null) { // else the task was answered
                int header = Long.BYTES + Integer.BYTES;
                String reason = buffer.getStringWithoutLengthUtf8(index + header, length - header);
                firing(() -> controller.abort(reason));
            }
            return;
        }
        if (type == ARG_ITEMS || type == ARG_END || type == ARG_FAILED) {
            onArgument(type, seq, buffer, index, length);
            return;
        }
        if (type != RUN && type != RUN_STREAM) {
            stop = type;
            selector.wakeup(); // if the worker thread read it, the reader stops the worker
            return;
        }
        int header = type == RUN_STREAM ? Long.BYTES + Integer.BYTES : Long.BYTES;
        Invocation invocation;
        try {
            decoding = seq;
            invocation = codec.decodeInvocation(messageBytes.copy(buffer, index + header, length - header), this);
        } catch (RuntimeException | LinkageError undecodable) {
            inbound.remove(seq);
            signals.remove(seq);
            reply(seq, FAILURE, codec.encodeFailure(undecodable));
            return;
        }
        Execution<Object> execution;
        if (type == RUN_STREAM) {
            StreamForwarder stream = new StreamForwarder(this, seq, buffer.getInt(index + Long.BYTES), "stream of " + invocation);
            execution = new Execution<>(invocation, stream);
            streams.put(seq, stream);
            streamRuns.put(seq, new StreamRun());
            unanswered.put(seq, execution);
            stream.start(execution); // answers once the stream has ended and the execution completed
        } else {
            execution = new Execution<>(invocation, null);
            unanswered.put(seq, execution);
            Execution<Object> valueTask = execution;
            execution.onSettled((value, failure) -> answer(seq, valueTask, value, failure)); // before it can complete
        }
        try {
            worker.dispatch(execution);
        } catch (RuntimeException refused) {
            streamRuns.remove(seq); // it never runs: its answer goes at once
            execution.completeExceptionally(refused);
        }
    }

    /**
     * Fires a task's signal on the reader, which must go on reading whatever the signal's actions do:
     * an action's {@link Error}, which on threads the caller that fires gets, is reported here.
     */
    private void firing(Runnable fire) {
        try {
            fire.run();
        } catch (RuntimeException | Error failed) {
            System.err.println("[moroutine] " + name + ": an onAbort action of a task's signal failed; the worker goes on");
            failed.printStackTrace();
        }
    }

    @Override
    public Invocation call(String id, Object[] args) {
        return definitions.computeIfAbsent(id, known -> Definition.find(known, ClassLoader.getSystemClassLoader())).call(args);
    }

    @Override
    public Object stream(int position) {
        InboundStream stream = new InboundStream(this, decoding, position, worker.group().highWaterMark(),
                "stream argument " + (position + 1) + " of a task on " + name);
        inbound.computeIfAbsent(decoding, seq -> new HashMap<>()).put(position, stream);
        return new StreamArg(stream);
    }

    @Override
    public Signal signal(int position, String reason) {
        AbortController controller = new AbortController();
        if (reason != null) {
            controller.abort(reason);
        }
        signals.computeIfAbsent(decoding, seq -> new HashMap<>()).put(position, controller);
        return controller.signal();
    }

    /** Items, the end or the failure of a stream argument, on the reader. */
    private void onArgument(int type, long seq, MutableDirectBuffer buffer, int index, int length) {
        Map<Integer, InboundStream> streamsOfTask = inbound.get(seq);
        InboundStream stream = streamsOfTask == null ? null : streamsOfTask.get(buffer.getInt(index + Long.BYTES));
        if (stream == null) {
            return; // the task was answered: its arguments are closed
        }
        int header = Long.BYTES + Integer.BYTES;
        switch (type) {
            case ARG_ITEMS -> {
                int count = buffer.getInt(index + header);
                int bytes = length - header - Integer.BYTES;
                try {
                    stream.emitRun(codec.decodeItems(messageBytes.copy(buffer, index + header + Integer.BYTES, bytes), count));
                } catch (RuntimeException | LinkageError undecodable) { // as a task's arguments: see onRequest
                    stream.fail(undecodable);
                }
                stream.arm();
            }
            case ARG_END -> stream.finish();
            default -> {
                byte[] failure = new byte[length - header];
                buffer.getBytes(index + header, failure);
                stream.fail(codec.decodeFailure(failure));
            }
        }
    }

    /** On the function's thread: it has taken {@code count} items of a stream argument. */
    void credit(long seq, int position, long count) {
        RingBuffer replies = shared.replies();
        int length = Long.BYTES + Integer.BYTES + Long.BYTES;
        int at;
        while ((at = replies.tryClaim(ARG_CREDIT, length)) < 0) {
            Thread.yield();
        }
        replies.buffer().putLong(at, seq);
        replies.buffer().putInt(at + Long.BYTES, position);
        replies.buffer().putLong(at + Long.BYTES + Integer.BYTES, count);
        replies.commit(at);
        ringParent();
    }

    @Override
    public Invocation taskArg(long key, Invocation decoded) {
        return taskArgs.computeIfAbsent(key, first -> decoded);
    }

    /** On the thread that completed the task: the worker's, but for a refusal or a cancellation; a stream's forwarder. */
    void answer(long seq, Execution<Object> execution, Object value, Throwable failure) {
        Long key = seq; // boxed once for the four maps
        unanswered.remove(key);
        streams.remove(key);
        inbound.remove(key);
        signals.remove(key);
        int type;
        byte[] payload;
        try {
            if (failure == null) {
                type = RESULT;
                payload = codec.encodeValue(value, execution.invocation(), name);
            } else if (execution.isCancelled()) {
                type = CANCELLED;
                payload = String.valueOf(failure.getMessage()).getBytes(StandardCharsets.UTF_8);
            } else {
                // Execution stores a CancellationException the function threw wrapped, as a failure: send the function's own.
                Throwable thrown = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                type = FAILURE;
                payload = codec.encodeFailure(thrown);
            }
        } catch (Throwable cannotCross) { // a refused result, or a user's throwable whose own methods throw: answered all the same
            type = FAILURE;
            payload = codec.encodeFailure(cannotCross);
        }
        reply(seq, type, payload);
    }

    /**
     * On the worker thread, which has left {@code execution}, before the next task starts: reports
     * the end of a streaming task's run, and if the parent asked to cancel the task, and it was
     * cancelled, writes its answer now (waiting for it if the canceller has not handed it over
     * yet: the execution is complete, so it comes).
     */
    private void left(Execution<?> execution) {
        if (!execution.isDone()) {
            // Its thread died in it (the next one fails it): no cancellation may wait for this run any more.
            unanswered.values().remove(execution);
        }
        StreamRun streamRun = execution.output() instanceof StreamForwarder stream ? streamRuns.remove(stream.seq) : null;
        if (streamRun != null) {
            long seq = ((StreamForwarder) execution.output()).seq;
            Answer held = streamRun.end();
            // An answer written from now on may go before RUN_ENDED: the parent then ignores RUN_ENDED.
            write(seq, held == null ? RUN_ENDED : held.type(), held == null ? NOTHING : held.payload());
        }
        if (cancelledRuns.isEmpty()) {
            return;
        }
        for (Map.Entry<Long, CancelledRun> entry : cancelledRuns.entrySet()) {
            CancelledRun run = entry.getValue();
            if (run.execution == execution) {
                if (run.leave()) {
                    Answer answer = run.answer.join();
                    write(entry.getKey(), answer.type(), answer.payload());
                }
                cancelledRuns.remove(entry.getKey()); // after the answer came: until then, it must find the run
                return;
            }
        }
    }

    private void reply(long seq, int type, byte[] payload) {
        CancelledRun cancelled = cancelledRuns.isEmpty() ? null : cancelledRuns.get(seq);
        if (cancelled != null && !cancelled.answered(type, payload)) {
            return; // the worker thread writes it when it leaves the run
        }
        StreamRun streamRun = streamRuns.isEmpty() ? null : streamRuns.get(seq); // put before the task ran, if a stream's
        if (streamRun != null && !streamRun.answered(type, payload)) {
            return; // likewise
        }
        write(seq, type, payload);
    }

    private void write(long seq, int type, byte[] payload) {
        RingBuffer replies = shared.replies();
        if (Long.BYTES + payload.length > replies.maxMsgLength()) {
            write(seq, FAILURE, codec.encodeFailure(new IllegalStateException("the answer is " + payload.length
                    + " bytes encoded, more than the " + (replies.maxMsgLength() - Long.BYTES) + " an isolated worker"
                    + " sends back in one message; return large data in a file instead")));
            return;
        }
        int at;
        while ((at = replies.tryClaim(type, Long.BYTES + payload.length)) < 0) {
            Thread.yield(); // the ring is full: the parent's pump is busy completing; it needs no ring to go on
        }
        replies.buffer().putLong(at, seq);
        replies.buffer().putBytes(at + Long.BYTES, payload);
        replies.commit(at);
        ringParent();
    }

    /** After a reply: wakes the parent's pump if it sleeps. */
    void ringParent() {
        if (shared.mustRing(SharedFile.Side.PARENT) && !Doorbell.ring(socket)) {
            parentGone();
        }
    }

    RingBuffer replies() {
        return shared.replies();
    }

    /** Runs a stream's forwarder: see {@code forwarders}. */
    void forward(Runnable forwarder) {
        forwarders.execute(forwarder);
    }

    SpinBudget streamSpin() {
        return streamSpin;
    }

    Codec codec() {
        return codec;
    }

    String name() {
        return name;
    }
}
