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
 * The function emits into a {@link Pipe#forwarding forwarding} pipe; a forwarder (a platform thread:
 * see {@link ClusterWorker}'s pump for why) moves what the pipe holds, in runs, into the outbox; a pull, on one of Hazelcast's executor
 * threads, answers with the outbox's items as one Fory array ({@link Codec#encodeItems}).
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
 * first item came (a slow producer's items do not wait for a full batch), or {@link #PULL_WAIT_NANOS}
 * without any item (an empty answer: the owner pulls again). So a fast producer's items cross in
 * batches of about a window each, as Hazelcast's own callables would carry them, and one message
 * costs one invocation however many items it holds.
 *
 * <h2>The end</h2>
 * Once the pipe has ended and the task has completed, the outcome follows the last items: the pull
 * that takes the last of them answers {@link MemberSide#END}, or, after a failure, the next pull
 * answers the failure. An item that cannot cross ({@link Codec#encodeItems} refuses it) ends the
 * stream so too: the producer is stopped, the items before it go, and the next pull answers why.
 * Closing ({@link #close}) cancels the task and answers every pull at once.
 * The outbox and counts are guarded by {@code lock}, so successive pulls, on whatever threads, see
 * each other's takes.
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
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<Object> outbox = new ArrayList<>();
    /** Items handed out in answers. */
    private long sent;
    /** The owner's consumer's count, as the last pull said. */
    private long credit;
    private boolean ended;
    private Throwable failure;
    private boolean closed;
    /** Set before the task is dispatched; read by pulls on other threads. */
    private volatile Execution<Object> execution;

    StreamServer(int highWaterMark, String description, Codec codec, String memberName,
            Function<Throwable, byte[]> failedAnswer, Supplier<byte[]> closedAnswer) {
        super(Pipe.forwarding(highWaterMark, description));
        this.codec = codec;
        this.memberName = memberName;
        this.failedAnswer = failedAnswer;
        this.closedAnswer = closedAnswer;
    }

    /** Starts forwarding the items of {@code running}, whose output this is. */
    void start(Execution<Object> running) {
        this.execution = running;
        Thread.ofPlatform().daemon().name("moroutine-cluster-forwarder").start(this::forward);
    }

    private void forward() {
        Object[] run = new Object[Math.max(1, Math.min(pipe.highWaterMark(), 4096))];
        try {
            for (int n; (n = pipe.nextRun(run)) > 0; ) {
                lock.lock();
                try {
                    boolean first = outbox.isEmpty();
                    if (!ended) { // else an item could not cross: nothing after it goes (see the class comment)
                        for (int i = 0; i < n; i++) { // not addAll(asList(run).subList(…)): its toArray walks an iterator
                            outbox.add(run[i]);
                        }
                    }
                    if (first || outbox.size() >= credit + pipe.highWaterMark() - sent) {
                        changed.signalAll(); // a waiting pull starts to linger, or has all its credit allows
                    }
                } finally {
                    lock.unlock();
                }
                Arrays.fill(run, 0, n, null);
            }
        } catch (RuntimeException stopped) {
            // the pipe failed or was stopped: the execution's outcome is the answer
        }
        execution.whenComplete((value, thrown) -> {
            lock.lock();
            try {
                ended = true;
                if (failure == null) { // an item that could not cross failed the stream first
                    failure = thrown;
                }
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
        lock.lock();
        try {
            credit = Math.max(credit, consumed);
            long deadline = System.nanoTime() + PULL_WAIT_NANOS;
            for (;;) {
                if (closed) {
                    return closedAnswer.get();
                }
                if (ended || (!outbox.isEmpty() && outbox.size() >= credit + pipe.highWaterMark() - sent)) {
                    break;
                }
                long now = System.nanoTime();
                if (!outbox.isEmpty()) {
                    deadline = Math.min(deadline, now + LINGER_NANOS);
                }
                if (deadline - now <= 0) {
                    break;
                }
                changed.awaitNanos(deadline - now);
            }
            if (ended && outbox.isEmpty() && failure != null) {
                return failedAnswer.apply(failure);
            }
            return answer();
        } finally {
            lock.unlock();
        }
    }

    /** The outbox's items (as many as the byte budget takes), as one array; holds the lock. */
    private byte[] answer() {
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
     * failure, as it answers the producer's own. Holds the lock.
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
        ended = true; // the forwarder adds nothing more
        failure = new IllegalArgumentException(cannotCross.getMessage()
                .replace("isolated worker " + memberName, "cluster member " + memberName)
                .replace("IsolatedOptions.defaults()", "ClusterOptions.defaults()"), cannotCross.getCause());
        pipe.cancel();
        execution.cancel(true);
    }

    /** The owner cancelled the stream, or its pool closes here: the task stops and pulls are answered at once. */
    void close() {
        lock.lock();
        try {
            closed = true;
            outbox.clear();
            changed.signalAll();
            pipe.cancel();
            Execution<Object> running = execution;
            if (running != null) {
                running.cancel(true);
            }
        } finally {
            lock.unlock();
        }
    }
}
