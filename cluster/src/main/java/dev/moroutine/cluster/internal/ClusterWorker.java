package dev.moroutine.cluster.internal;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.ExecutionCallback;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.SpinBudget;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.internal.dispatch.WorkerGroup;
import dev.moroutine.internal.stream.Pipe;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A pool worker that is a cluster member: its tasks run on the member's worker thread for this pool
 * ({@link MemberSide}), sent through Hazelcast's executor service.
 *
 * <h2>A task</h2>
 * The dispatching thread encodes the task (an argument that cannot cross fails the call there),
 * counts it in {@link #activeCount()}, records it in {@code inFlight} under a sequence number and
 * puts it in the outbox, which is sent to the member in batches, one batch in flight at a time
 * ({@link #sendBatch()}): so the member runs the tasks in the order they were dispatched. The
 * member's answer to a batch arrives on a thread of the backend's ({@link ClusterBackend#submit}),
 * which completes the executions and sends the next batch. A batch holds one of the member's
 * executor threads while the member's worker runs its tasks, one at a time.
 *
 * <h2>Exactly once</h2>
 * Whatever settles a task (its answer, its member leaving, a forced stop, a cancellation) first takes
 * it out of {@code inFlight}: only the one that removes it completes the execution, and counts it
 * out. A member that leaves settles all of its tasks at once ({@link #memberLeft}), and Hazelcast fails
 * every invocation it had sent there too ({@code MemberLeftException}), so no caller waits for
 * an answer that will not come. A task of an idempotent moroutine goes to another member instead.
 * The caller's own Hazelcast instance that shuts down settles them all too ({@link #callerShutDown}):
 * no answer, pull or cancel can travel any more.
 *
 * <p>A task's timeout (its own, or the pool's) is the member's to enforce, counted from the task's
 * start there, as on a thread: the member's worker stops it and answers with the {@code TimeoutException}.
 *
 * <h2>A stream</h2>
 * The member starts the streaming task and answers at once; a thread here, the pump, pulls
 * its items in batches ({@link Envelope#PULL}, one pull at a time) and emits each batch into the caller's
 * pipe as one run ({@link Pipe#emitRun}). Each pull carries the count the caller's consumer has taken, which the member's producer
 * counts its lead against (see {@link StreamServer}): so the caller's pipe, of the same high-water
 * mark, always has room, and the pump never waits on it. The next pull leaves at the count
 * {@link PullPacing} gives: a consumer that takes a whole window within a round trip is answered a
 * window per pull, once it has taken everything; a slower one is pulled for while it still has a round
 * trip's worth of items. A pull at the count of all the items received is sent by the take that
 * reaches it, on the consumer's thread, which then wakes the pump to wait for its answer
 * ({@link PullHandOff}: so no wake of the pump lies between the consumer's last take and the pull's
 * departure); an earlier pull, or one whose count was reached before the pump looked, the pump
 * sends. A consumer's close wakes a waiting pump before it
 * settles the task, so the pump looks at its pipe too: a closed pipe, it cancels the task on the member.
 * Whatever else settles a stream (a stop, its member leaving, the caller's instance shutting down) wakes
 * its pump ({@link #settle}: the pump announces itself in the task's {@code pump} before it first looks
 * whether the task is in flight, and a settle takes the task out before it reads {@code pump}: so either
 * the pump sees the task settled or the settle sees the pump), and the pump, seeing it settled, ends.
 * A stream settled before the member's answer to its STREAM is cancelled again when that answer comes:
 * its first CANCEL travels on another executor, and may have reached the member before the STREAM.
 *
 * <h2>Lifecycle</h2>
 * OPEN, then DRAINING ({@link #drain}: tasks sent still run; the pool on the member is closed when the
 * last one is answered) or STOPPED ({@link #forceStop}: tasks are cancelled here and interrupted
 * there; or {@link #memberLeft}, or {@link #callerShutDown}). Stopped once the member has closed its pool
 * (its task-arg values closed), has left, or can no longer be reached.
 */
public final class ClusterWorker implements Worker {

    private static final int OPEN = 0;
    private static final int DRAINING = 1;
    private static final int STOPPED = 2;
    private static final int CALLER_SPIN_NANOS = 20_000;
    /** The most tasks, and about the most bytes, in one batch. */
    private static final int MAX_BATCH = 1024;
    private static final int MAX_BATCH_BYTES = 1 << 20;

    private final String name;
    private final int index;
    private final WorkerGroup group;
    private final ClusterBackend backend;
    private final Member member;
    private final SpinBudget callerSpin = new SpinBudget(CALLER_SPIN_NANOS);
    private final Map<Long, Pending> inFlight = new ConcurrentHashMap<>();
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Value tasks not sent yet, in dispatch order; sent in batches by {@link #sendBatch()}. */
    private final Queue<Pending> outbox = new ConcurrentLinkedQueue<>();
    /** A batch is on its way to the member. */
    private final AtomicBoolean sending = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile int lifecycle = OPEN;
    private volatile String stopReason;
    /** Set when the member left or the caller's instance shut down: nothing is sent to the member any more. */
    private volatile String leftReason;
    /** Set when the caller's Hazelcast instance shut down: a stop settles each task with the failure that says so. */
    private volatile String callerGone;

    /** A task sent to the member and not settled yet. */
    final class Pending {
        final Execution<?> execution;
        final byte[] request;
        final boolean streaming;
        final long seq;
        /** A stream's pump thread, once it runs: woken by whatever settles the task (see the class comment). */
        volatile Thread pump;

        Pending(Execution<?> execution, byte[] request, boolean streaming, long seq) {
            this.execution = execution;
            this.request = request;
            this.streaming = streaming;
            this.seq = seq;
        }
    }

    ClusterWorker(String name, int index, WorkerGroup group, ClusterBackend backend, Member member) {
        this.name = name;
        this.index = index;
        this.group = group;
        this.backend = backend;
        this.member = member;
    }

    /**
     * The member this worker sends its tasks to.
     *
     * @return the member
     */
    public Member member() {
        return member;
    }

    ClusterBackend backend() {
        return backend;
    }

    @Override
    public void dispatch(Execution<?> execution) {
        execution.sentTo(this);
        Invocation invocation = execution.invocation();
        boolean streaming = execution.output() != null;
        byte[] request = backend.encode(invocation, streaming, this);
        accept(execution, request, streaming);
    }

    /** Counts, records and sends a task encoded already: a new one, or one of an idempotent moroutine whose member left. */
    void accept(Execution<?> execution, byte[] request, boolean streaming) {
        active.incrementAndGet();
        if (lifecycle != OPEN) {
            active.decrementAndGet();
            drained();
            String why = leftReason != null ? leftReason : stopReason;
            throw new RejectedExecutionException(why + ", so " + name + " cannot run " + execution.invocation());
        }
        execution.admitted();
        long seq = sequence.incrementAndGet();
        Pending pending = new Pending(execution, request, streaming, seq);
        inFlight.put(seq, pending);
        execution.whenComplete((ignored, failure) -> {
            if (failure instanceof CancellationException && inFlight.containsKey(seq)) {
                cancelled(pending); // cancelled from outside: stop it on the member too
            }
        });
        if (lifecycle == STOPPED) { // stopped while this was being recorded: its stop may have missed it
            abandon(pending);
            return;
        }
        long timeout = ownTimeoutNanos(execution.invocation());
        if (!streaming) {
            outbox.offer(pending);
            sendBatch();
            return;
        }
        int highWaterMark = ((Pipe<?>) execution.output().open(this)).highWaterMark();
        byte[] payload = ByteBuffer.allocate(Long.BYTES + Integer.BYTES + request.length).putLong(timeout).putInt(highWaterMark)
                .put(request).array();
        Envelope envelope = new Envelope(Envelope.STREAM, backend.poolId(), seq, 0, payload, null);
        try {
            ClusterBackend.submit(backend.tasks(), envelope, member, new ExecutionCallback<byte[]>() {
                @Override
                public void onResponse(byte[] reply) {
                    answered(pending, reply);
                }

                @Override
                public void onFailure(Throwable t) {
                    failed(pending, t);
                }
            });
        } catch (RuntimeException unreachable) {
            failed(pending, unreachable);
        }
    }

    /**
     * Sends the tasks waiting in the outbox as one batch, unless a batch is on its way: then the
     * answer to that one sends the next. So there is one batch in flight per member, in order (the
     * member runs them in the order they were dispatched), and under load each batch carries what
     * came meanwhile: one Hazelcast invocation and one wake-up of the member's worker for many tasks.
     */
    private void sendBatch() {
        while (!outbox.isEmpty() && sending.compareAndSet(false, true)) {
            List<Pending> batch = new ArrayList<>();
            int bytes = Integer.BYTES;
            for (Pending next; batch.size() < MAX_BATCH && bytes < MAX_BATCH_BYTES && (next = outbox.poll()) != null; ) {
                if (inFlight.containsKey(next.seq)) { // not settled meanwhile (cancelled, timed out, stopped)
                    batch.add(next);
                    bytes += 2 * Long.BYTES + Integer.BYTES + next.request.length;
                }
            }
            if (batch.isEmpty()) {
                sending.set(false);
                continue;
            }
            ByteBuffer out = ByteBuffer.allocate(bytes);
            out.putInt(batch.size());
            for (Pending pending : batch) {
                out.putLong(pending.seq).putLong(ownTimeoutNanos(pending.execution.invocation())).putInt(pending.request.length)
                        .put(pending.request);
            }
            Envelope envelope = new Envelope(Envelope.RUN, backend.poolId(), 0, 0, out.array(), null);
            try {
                ClusterBackend.submit(backend.tasks(), envelope, member, new ExecutionCallback<byte[]>() {
                    @Override
                    public void onResponse(byte[] reply) {
                        answeredBatch(batch, reply);
                        sending.set(false);
                        sendBatch();
                    }

                    @Override
                    public void onFailure(Throwable t) {
                        for (Pending pending : batch) {
                            failed(pending, t);
                        }
                        sending.set(false);
                        sendBatch();
                    }
                });
            } catch (RuntimeException unreachable) {
                for (Pending pending : batch) {
                    failed(pending, unreachable);
                }
                sending.set(false);
            }
            return;
        }
    }

    private void answeredBatch(List<Pending> batch, byte[] reply) {
        ByteBuffer in = ByteBuffer.wrap(reply);
        int count = in.getInt();
        Map<Long, Pending> bySeq = new HashMap<>();
        for (Pending pending : batch) {
            bySeq.put(pending.seq, pending);
        }
        for (int i = 0; i < count; i++) {
            long seq = in.getLong();
            byte[] answer = new byte[in.getInt()];
            in.get(answer);
            Pending pending = bySeq.get(seq);
            if (pending != null) {
                answered(pending, answer);
            }
        }
    }

    private static long ownTimeoutNanos(Invocation invocation) {
        Duration own = invocation.timeout();
        return own == null ? -1 : TimeUnit.NANOSECONDS.convert(own);
    }

    /** Takes the task out of flight, and wakes its pump if it waits: true for the one caller that may complete it. */
    private boolean settle(Pending pending) {
        if (!inFlight.remove(pending.seq, pending)) {
            return false;
        }
        Thread pump = pending.pump; // read after the removal: a pump that announced itself later sees the removal
        if (pump != null && pump != Thread.currentThread()) {
            LockSupport.unpark(pump);
        }
        active.decrementAndGet();
        drained();
        return true;
    }

    private void answered(Pending pending, byte[] reply) {
        if (reply[0] == MemberSide.LEFT) {
            lost(pending, new String(reply, 1, reply.length - 1, StandardCharsets.UTF_8));
            return;
        }
        if (pending.streaming && reply[0] == MemberSide.OK) {
            if (!inFlight.containsKey(pending.seq)) {
                // Settled (closed, say) before the member started it: its CANCEL, on the control executor,
                // may have reached the member before this STREAM and found nothing to stop. The stream is
                // there now, so cancel it again: a later CANCEL is sent after this answer, and finds it.
                sendCancel(pending.seq);
                return;
            }
            Thread.ofPlatform().daemon().name(name + "-stream-" + pending.seq).start(() -> pump(pending));
            return;
        }
        if (!settle(pending)) {
            return;
        }
        complete(pending.execution, reply);
    }

    private void complete(Execution<?> execution, byte[] reply) {
        byte[] payload = Arrays.copyOfRange(reply, 1, reply.length);
        try {
            switch (reply[0]) {
                case MemberSide.VALUE -> completeWith(execution, backend.codec().decodeValue(payload));
                case MemberSide.FAILURE -> {
                    Throwable failure = backend.codec().decodeFailure(payload);
                    execution.completeExceptionally(failure instanceof CancellationException ? new CompletionException(failure) : failure);
                }
                case MemberSide.CANCELLED -> execution.cancel(new String(payload, StandardCharsets.UTF_8));
                default -> execution.completeExceptionally(new IllegalStateException("unexpected answer " + reply[0] + " from " + this));
            }
        } catch (RuntimeException undecodable) {
            execution.completeExceptionally(new IllegalStateException("the answer of " + execution.invocation() + " from "
                    + this + " could not be decoded: " + undecodable, undecodable));
        }
    }

    @SuppressWarnings("unchecked") // the result of the moroutine's function, of its R
    private static <R> void completeWith(Execution<R> execution, Object value) {
        execution.complete((R) value);
    }

    /** Hazelcast could not deliver the task or its answer. */
    private void failed(Pending pending, Throwable failure) {
        if (!inFlight.containsKey(pending.seq) || callerGoing()) {
            return; // settled already, or now with every other task: the caller's instance is shutting down
        }
        if (ClusterBackend.memberGone(failure) || !backend.hazelcast().getCluster().getMembers().contains(member)) {
            lost(pending, "it left the cluster (" + failure + ")");
            return;
        }
        if (settle(pending)) {
            pending.execution.completeExceptionally(new IllegalStateException(pending.execution.invocation() + " could not"
                    + " run on " + this + ": " + failure, failure));
        }
    }

    /** The member is gone with this task unanswered: run it elsewhere if its moroutine is idempotent, else fail it. */
    private void lost(Pending pending, String how) {
        if (!settle(pending)) {
            return;
        }
        if (!pending.streaming && backend.idempotent(pending.execution.invocation()) && backend.rerun(pending, this)) {
            return;
        }
        pending.execution.completeExceptionally(new WorkerDiedException("cluster member " + member + " (" + name + ") left"
                + " before it answered " + pending.execution.invocation() + ": " + how + "; the task may or may not have run"
                + " there" + (pending.streaming ? "" : "; mark its moroutine idempotent (ClusterOptions.idempotent) to run it"
                + " again on another member instead"), null));
    }

    /** The member left the cluster: every task it had settles now. */
    void memberLeft(String how) {
        leftReason = "cluster member " + member + " " + how;
        stopReason = leftReason;
        lifecycle = STOPPED;
        for (Pending pending : inFlight.values()) {
            lost(pending, how);
        }
        stopped.countDown();
    }

    /**
     * The caller's Hazelcast instance is shutting down (its lifecycle listener: a member's before it stops, a
     * client's while it stops; or a failure that found it stopped): every task settles now with a failure that
     * says so, and new ones are refused. Nothing is sent to the member any more; the members close the pool
     * when the instance that owns it leaves.
     *
     * @param instance the instance's name, for the messages
     */
    void callerShutDown(String instance) {
        callerGone = "the caller's Hazelcast instance " + instance + " shut down";
        leftReason = callerGone + " (close the pool before its Hazelcast instance)";
        stopReason = leftReason;
        lifecycle = STOPPED;
        for (Pending pending : inFlight.values()) {
            abandon(pending);
        }
        stopped.countDown();
    }

    /** Whether the caller's instance is shutting down: then every task settles now (if its listener has not yet), this one too. */
    private boolean callerGoing() {
        if (backend.callerRunning()) {
            return false;
        }
        backend.callerShutDown();
        return true;
    }

    private void cancelled(Pending pending) {
        if (settle(pending)) {
            sendCancel(pending.seq);
        }
    }

    private void sendCancel(long seq) {
        if (leftReason != null) {
            return;
        }
        try {
            backend.control().submitToMember(new Envelope(Envelope.CANCEL, backend.poolId(), seq, 0, null, null), member);
        } catch (RuntimeException gone) {
            // the member or this instance is going: nothing runs there any more
        }
    }

    /**
     * On its own thread: pulls the stream's items from the member into the caller's pipe. A platform
     * thread, not a virtual one: it is woken twice a batch (the pull sent, its answer), and each
     * wake of a virtual thread also wakes a carrier of the virtual-thread scheduler, which then spins
     * for more work; on 2 cores those carriers took more CPU than any other thread of the stream.
     */
    @SuppressWarnings("unchecked") // a streaming call's output is its pipe
    private void pump(Pending pending) {
        Pipe<Object> pipe = (Pipe<Object>) pending.execution.output().open(this);
        pipe.producedElsewhere(); // before the first item, which this pump emits: it waits for takes through wakeOnConsumption
        PullPacing pacing = new PullPacing(pipe.highWaterMark());
        pending.pump = Thread.currentThread(); // before the first look at inFlight: see settle
        PullHandOff pulls = new PullHandOff(pipe, consumed -> backend.control().submitToMember(
                new Envelope(Envelope.PULL, backend.poolId(), pending.seq, consumed, null, null), member));
        BooleanSupplier wanted = () -> inFlight.containsKey(pending.seq) && !pipe.cancelled();
        long received = 0;
        try {
            for (;;) {
                if (!inFlight.containsKey(pending.seq)) {
                    return; // settled meanwhile: cancelled, timed out, stopped, or its member left
                }
                if (pipe.cancelled()) {
                    // The consumer closed: its close wakes this pump before it settles the task, so the pump
                    // settles it itself rather than wait for a settling that wakes nobody.
                    cancelled(pending);
                    return;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException(name + " was stopped");
                }
                // sent by the take that reaches the count if that take leaves nothing (else, or if taken already, by this pump)
                long pullAt = pacing.pullAt(received);
                PullHandOff.Sent pull = pulls.next(pullAt, pullAt >= received, wanted);
                if (pull == null) {
                    continue; // closed or settled meanwhile: see above
                }
                pacing.pulling(pull.sentAt(), pull.consumed());
                if (pull.refused() != null) {
                    throw pull.refused();
                }
                byte[] reply;
                try {
                    reply = pull.answer().get();
                } catch (ExecutionException failed) {
                    failed(pending, failed.getCause() != null ? failed.getCause() : failed);
                    return;
                }
                byte kind = reply[0];
                if (kind == MemberSide.ITEMS || kind == MemberSide.END) {
                    int count = ByteBuffer.wrap(reply).getInt(1);
                    if (count > 0) {
                        // one run, one fence and wake for the whole answer; there is room: see the class comment
                        pipe.emitRun(backend.codec().decodeItems(reply, StreamServer.HEADER, count), count);
                        received += count;
                    }
                    pacing.handed(System.nanoTime(), pipe.consumedCount(), count);
                    if (kind == MemberSide.END) {
                        pipe.finish();
                        if (settle(pending)) {
                            completeWith(pending.execution, null);
                        }
                        return;
                    }
                } else if (kind == MemberSide.LEFT) {
                    lost(pending, new String(reply, 1, reply.length - 1, StandardCharsets.UTF_8));
                    return;
                } else {
                    if (settle(pending)) {
                        complete(pending.execution, reply);
                    }
                    return;
                }
            }
        } catch (CancellationException closed) { // the consumer closed the stream: its execution is cancelled
            cancelled(pending);
        } catch (InterruptedException interrupted) {
            if (settle(pending)) {
                pending.execution.cancel(name + " was stopped");
                sendCancel(pending.seq);
            }
        } catch (RuntimeException | Error broken) {
            if (broken instanceof RuntimeException && callerGoing()) {
                return; // a stopped instance refused the pull
            }
            if (settle(pending)) {
                pending.execution.completeExceptionally(broken);
                sendCancel(pending.seq);
            }
        }
    }

    private void abandon(Pending pending) {
        if (!settle(pending)) {
            return;
        }
        String gone = callerGone;
        if (gone == null) {
            pending.execution.cancel(stopReason + " while this task was on " + this);
            return;
        }
        pending.execution.completeExceptionally(new IllegalStateException(gone + " while " + pending.execution.invocation()
                + " was on " + this + ", so it was given up here; it may or may not have run there. Close the pool (and"
                + " its streams) before you shut down the Hazelcast instance it was made with"));
    }

    /** Once draining and every task answered: closes the pool on the member, which closes the task-arg values there. */
    private void drained() {
        if (lifecycle == DRAINING && active.get() == 0 && closing.compareAndSet(false, true)) {
            closeOnMember(true);
        }
    }

    private void closeOnMember(boolean graceful) {
        if (leftReason != null) {
            stopped.countDown();
            return;
        }
        try {
            ClusterBackend.submit(backend.control(), new Envelope(Envelope.CLOSE, backend.poolId(), 0, graceful ? 1 : 0, null, null),
                    member, new ExecutionCallback<byte[]>() {
                        @Override
                        public void onResponse(byte[] reply) {
                            stopped.countDown();
                        }

                        @Override
                        public void onFailure(Throwable t) {
                            stopped.countDown();
                        }
                    });
        } catch (RuntimeException gone) {
            stopped.countDown();
        }
    }

    @Override
    public boolean isCurrent() {
        return false; // its tasks run on the member's thread, never on one of this JVM's callers
    }

    /** Never called: the stop hand-shake runs only for executions run in this process; a stop is sent to the member. */
    @Override
    public void interruptRun() {}

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
        if (lifecycle == OPEN) {
            stopReason = reason;
            lifecycle = DRAINING;
            drained();
        }
    }

    @Override
    public void forceStop(String reason) {
        if (lifecycle == STOPPED) {
            return;
        }
        stopReason = reason;
        lifecycle = STOPPED;
        for (Pending pending : inFlight.values()) {
            abandon(pending);
        }
        if (closing.compareAndSet(false, true)) {
            closeOnMember(false);
        } else {
            // a graceful close is on its way; the member's forced close comes with this one
            try {
                backend.control().submitToMember(new Envelope(Envelope.CLOSE, backend.poolId(), 0, 0, null, null), member);
            } catch (RuntimeException gone) {
                stopped.countDown();
            }
        }
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
        for (Pending pending : inFlight.values()) {
            return pending.execution;
        }
        return null;
    }

    @Override
    public int activeCount() {
        return active.get();
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
        return "cluster worker " + index + " (" + name + ", member " + member.getAddress() + ")";
    }
}
