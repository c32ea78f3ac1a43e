package dev.moroutine.cluster.internal;

import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.stream.Pipe;
import dev.moroutine.internal.stream.PipeOutput;
import dev.moroutine.isolated.internal.Codec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.fory.memory.MemoryBuffer;

/**
 * On a member, the output of one streaming task, served to its owner's pulls ({@link Envelope#PULL}).
 * The function emits into a {@link Pipe#forwarding forwarding} pipe, whose consumer is the pull at
 * hand: a pull, on one of Hazelcast's executor threads, takes what the pipe holds (waiting for it
 * in the pipe, so that the producer's emit wakes the pull itself, with no thread between them) and
 * answers with those items as one Fory array ({@link Codec#encodeItems}).
 *
 * <h2>Flow control: credit</h2>
 * A pull carries the count the owner's consumer has taken ({@link Pipe#acknowledge}): the pipe
 * counts the producer's lead against it, so the producer waits while it is {@code highWaterMark}
 * items ahead of the owner's consumer, wherever those items are (the pipe, the outbox, a reply on
 * its way, the owner's pipe). The owner's pipe has the same high-water mark, so its pump never
 * waits for room there.
 *
 * <h2>Batching</h2>
 * A pull answers once the outbox holds all that its credit lets the producer emit (the producer can
 * add nothing before the next pull), or the stream has ended, or {@link #LINGER_NANOS} after the
 * pull came, or after its first item if none had come by then (a slow producer's items do not wait
 * for a full batch), or {@link #PULL_WAIT_NANOS} without any item (an empty answer: the owner pulls
 * again). So a fast producer's items cross in batches of about a window each, as Hazelcast's own
 * callables would carry them, and one message costs one invocation however many items it holds.
 * Items the byte budget leaves out stay in the outbox for the next pull.
 *
 * <p>Within its linger the pull waits for the whole batch at once ({@link Pipe#awaitItems}): the
 * producer's emits do not wake it before the batch is there, so the producer, woken by the pull's
 * credit, has a core to itself and wakes the pull once. (A pull that woke at each item taking what
 * there was woke about 8 times a batch of 1,024 on 2 cores, each a park and an unpark.) Once the
 * linger is over with nothing taken, it waits for the first item ({@link Pipe#awaitReady}), then
 * lingers from it.
 *
 * <h2>The end</h2>
 * Once the pipe has ended and the task has completed, the outcome follows the last items: the pull
 * that takes the last of them answers {@link MemberSide#END}, or, after a failure, the next pull
 * answers the failure. An item that cannot cross ({@link Codec#encodeItems} refuses it) ends the
 * stream so too: the producer is stopped, the items before it go, and the next pull answers why.
 * Closing ({@link #close}) cancels the task and answers every pull at once.
 *
 * <h2>Threads</h2>
 * Pulls come one at a time, each on whatever executor thread Hazelcast picks; each holds
 * {@code pulling} throughout, so the pipe's one consumer moves from thread to thread with the lock's
 * ordering, and successive pulls see each other's takes and the outbox. What other threads change
 * never waits for a pull: the task's completion (on the member's worker thread) records its outcome
 * under {@code lock} and wakes a pull waiting for it through {@code changed}; {@link #close} (on
 * another executor thread) sets {@code closed} and cancels the pipe, which ends a pull's wait in it.
 */
final class StreamServer extends PipeOutput {

    /** How long a pull waits for more items once it has one. */
    static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How long a pull waits for a first item before it answers with none (the owner pulls again). */
    static final long PULL_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** Bytes after which an answer takes no more items (the rest go with the next one). */
    static final int BYTE_BUDGET = 1 << 20;
    /** The answer's header: its kind, then the item count (int32). */
    static final int HEADER = 1 + Integer.BYTES;

    private final Codec codec;
    private final String memberName;
    private final Function<Throwable, byte[]> failedAnswer;
    private final Supplier<byte[]> closedAnswer;
    /** Held by a pull throughout: it guards the pipe's consumer end and the fields below it. */
    private final ReentrantLock pulling = new ReentrantLock();
    private final List<Object> outbox = new ArrayList<>();
    /** Where a pull takes a run of the pipe's items. */
    private final Object[] run;
    /** Items handed out in answers. */
    private long sent;
    /** The owner's consumer's count, as the last pull said. */
    private long credit;
    /** The pipe has ended for its consumer (or an item could not cross): nothing more is taken from it. */
    private boolean drained;
    /** Guards the writes of the outcome (the task's completion against a refused item) and signals {@code changed}. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** The task has completed (or an item could not cross): with {@code drained}, the stream's outcome is known. */
    private volatile boolean completed;
    /** Written before {@code completed}. */
    private volatile Throwable failure;
    private volatile boolean closed;
    /** Set before the task is dispatched; read by pulls on other threads. */
    private volatile Execution<Object> execution;

    StreamServer(int highWaterMark, String description, Codec codec, String memberName,
            Function<Throwable, byte[]> failedAnswer, Supplier<byte[]> closedAnswer) {
        super(Pipe.forwarding(highWaterMark, description));
        this.codec = codec;
        this.memberName = memberName;
        this.failedAnswer = failedAnswer;
        this.closedAnswer = closedAnswer;
        this.run = new Object[Math.max(1, Math.min(highWaterMark, 4096))];
    }

    /** Serves the items of {@code running}, whose output this is: its outcome follows them. */
    void start(Execution<Object> running) {
        this.execution = running;
        running.whenComplete((value, thrown) -> {
            lock.lock();
            try {
                if (failure == null) { // an item that could not cross failed the stream first
                    failure = thrown;
                }
                completed = true;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        });
    }

    /**
     * Answers a pull: the items ready (see the class comment), then the end or the failure.
     *
     * @param consumed how many items the owner's consumer has taken in all
     * @return the answer
     * @throws InterruptedException if the member stops meanwhile
     */
    byte[] pull(long consumed) throws InterruptedException {
        pipe.acknowledge(consumed);
        pulling.lock();
        try {
            credit = Math.max(credit, consumed);
            long now = System.nanoTime();
            long deadline = now + PULL_WAIT_NANOS;
            long lingerEnd = now + LINGER_NANOS;
            for (long wanted; !closed && !drained && (wanted = credit + pipe.highWaterMark() - sent - outbox.size()) > 0; ) {
                boolean lingered = System.nanoTime() - lingerEnd >= 0;
                if (lingered && !outbox.isEmpty()) {
                    break; // what came in time goes now
                }
                if (lingered) {
                    if (!pipe.awaitReady(deadline)) {
                        break; // nothing in time: an empty answer, and the owner pulls again
                    }
                    lingerEnd = Math.min(deadline, System.nanoTime() + LINGER_NANOS); // not past the deadline: see below
                } else if (!pipe.awaitItems((int) wanted, lingerEnd)) {
                    continue; // none by the end of the linger, which the next look sees: it never loops on a deadline passed
                }
                take();
            }
            if (drained && !completed) {
                awaitCompletion(deadline); // the pipe has ended: its task completes next
            }
            if (closed) {
                return closedAnswer.get();
            }
            boolean ended = drained && completed;
            Throwable failed = failure;
            if (ended && outbox.isEmpty() && failed != null) {
                return failedAnswer.apply(failed);
            }
            return answer(ended);
        } finally {
            pulling.unlock();
        }
    }

    private void awaitCompletion(long deadline) throws InterruptedException {
        lock.lock();
        try {
            for (long now = System.nanoTime(); !closed && !completed && deadline - now > 0; now = System.nanoTime()) {
                changed.awaitNanos(deadline - now);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes a run of the pipe's items into the outbox (an item is ready), or finds its end. Holds {@code pulling}. */
    private void take() {
        int n;
        try {
            n = pipe.nextRun(run);
        } catch (RuntimeException stopped) {
            n = 0; // the pipe failed or was stopped: the task's outcome is the answer
        }
        if (n == 0) {
            drained = true;
            return;
        }
        for (int i = 0; i < n; i++) { // not addAll(asList(run).subList(…)): its toArray walks an iterator
            outbox.add(run[i]);
        }
        Arrays.fill(run, 0, n, null);
    }

    /** The outbox's items (as many as the byte budget takes), as one array, and whether the stream ended with them; holds {@code pulling}. */
    private byte[] answer(boolean ended) {
        MemoryBuffer out = MemoryBuffer.newHeapBuffer(HEADER + 16 * outbox.size() + 16);
        out.writerIndex(HEADER);
        int count = 0;
        if (!outbox.isEmpty()) {
            Object[] items = outbox.toArray();
            try {
                count = codec.encodeItems(items, 0, items.length, out, BYTE_BUDGET, execution.invocation(), memberName);
            } catch (IllegalArgumentException cannotCross) {
                refuse(items, cannotCross);
                if (outbox.isEmpty()) {
                    return failedAnswer.apply(failure);
                }
                out.writerIndex(HEADER);
                count = codec.encodeItems(items, 0, outbox.size(), out, BYTE_BUDGET, execution.invocation(), memberName);
            }
            outbox.subList(0, count).clear();
            sent += count;
        }
        byte[] reply = out.getBytes(0, out.writerIndex());
        reply[0] = ended && outbox.isEmpty() && failure == null ? MemberSide.END : MemberSide.ITEMS;
        ByteBuffer.wrap(reply).putInt(1, count);
        return reply;
    }

    /**
     * An item of the outbox cannot cross: the stream fails with that, after the items before it. The
     * producer stops, the outbox keeps only those items, and the pull that finds it empty answers the
     * failure, as it answers the producer's own. Holds {@code pulling}.
     */
    private void refuse(Object[] items, IllegalArgumentException cannotCross) {
        int crossing = 0;
        MemoryBuffer scratch = MemoryBuffer.newHeapBuffer(64);
        try {
            for (; crossing < items.length; crossing++) { // the culprit is the first item that cannot cross alone
                scratch.writerIndex(0);
                codec.encodeItems(items, crossing, 1, scratch, BYTE_BUDGET, execution.invocation(), memberName);
            }
        } catch (IllegalArgumentException culprit) {
            // found at index crossing
        }
        outbox.subList(crossing, outbox.size()).clear();
        drained = true; // nothing more is taken from the pipe, and the outcome is this failure
        lock.lock();
        try {
            failure = new IllegalArgumentException(cannotCross.getMessage()
                    .replace("isolated worker " + memberName, "cluster member " + memberName)
                    .replace("IsolatedOptions.defaults()", "ClusterOptions.defaults()"), cannotCross.getCause());
            completed = true;
        } finally {
            lock.unlock();
        }
        pipe.cancel();
        execution.cancel(true);
    }

    /** The owner cancelled the stream, or its pool closes here: the task stops and pulls are answered at once. */
    void close() {
        closed = true;
        pipe.cancel(); // ends a pull's wait in the pipe
        Execution<Object> running = execution;
        if (running != null) {
            running.cancel(true);
        }
        lock.lock();
        try {
            changed.signalAll(); // and one waiting for the task's completion
        } finally {
            lock.unlock();
        }
    }
}
