package dev.moroutine.isolated.internal;

import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.stream.Pipe;
import dev.moroutine.internal.stream.PipeOutput;
import java.util.Arrays;
import org.apache.fory.memory.MemoryBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * In a worker JVM, the output of one streaming task: the function emits into a {@link Pipe} made
 * {@link Pipe#forwarding forwarding}, and this forwarder, on a thread of the child's
 * ({@link Child#forward}), takes the items and writes them to the reply ring as
 * {@link Child#ITEMS} messages, in order. Its wait for items, and the function's wait for
 * credit, yield the core ({@link Pipe#waitsWith}): a producer that emits keeps finding its consumer
 * awake, where waking a parked one cost the producer a system call every few items (on 2 cores,
 * the stream of the bench went from about 2.3 to 4–8 M items/s).
 *
 * <h2>Flow control: credit</h2>
 * The caller's pump grants credit by sending the count its consumer has taken ({@link Child#CREDIT});
 * the thread reading the requests hands it to {@link Pipe#acknowledge}. The pipe counts the producer's lead
 * against that count, not against what this forwarder took, so the function blocks in
 * {@code emit} while it is {@code highWaterMark} items ahead of the caller's consumer, wherever
 * those items are (in this pipe, in a batch, in the ring, or in the caller's pipe). The caller's
 * pipe has the same high-water mark, so its pump never waits for room there.
 *
 * <h2>Batching</h2>
 * The forwarder waits for one item, then takes those already queued (up to {@link #MAX_BATCH}),
 * and sends them in one message of at most about {@link #BYTE_BUDGET} bytes: a fast producer
 * fills batches, a slow one has each item sent at once.
 *
 * <h2>The end</h2>
 * When the pipe ends (finished, failed or stopped) every item taken has been sent; the forwarder
 * then answers the task, once its execution has completed, so the answer always follows the
 * task's last items in the ring. The function's run may have ended well before (the worker thread
 * reports that on its own, {@link Child#RUN_ENDED}, and goes on with the next task); it never waits
 * for the items to cross, so a caller may read this stream after the next task's result. An item
 * that cannot cross fails the pipe (the function's next emit throws) but leaves the execution to
 * its run: until the function returns, the task runs, and the caller's cancel or signal reaches it
 * as for any running task; the answer, that item's failure, comes when it completes.
 */
final class StreamForwarder extends PipeOutput {

    /** Items taken from the pipe at most per message. */
    static final int MAX_BATCH = 4096;
    /** Bytes after which a message takes no more items. */
    static final int BYTE_BUDGET = 64 * 1024;
    /** Sequence number, item count. */
    static final int HEADER = Long.BYTES + Integer.BYTES;

    private final Child child;
    /** The task's sequence number. */
    final long seq;
    private Execution<Object> execution;

    StreamForwarder(Child child, long seq, int highWaterMark, String description) {
        super(Pipe.forwarding(highWaterMark, description));
        this.child = child;
        this.seq = seq;
        pipe.waitsWith(child.streamSpin());
    }

    /** Starts forwarding the items of {@code running}, whose output this is. */
    void start(Execution<Object> running) {
        this.execution = running;
        child.forward(this::forward);
    }

    /** The caller's consumer has taken {@code count} items in all. */
    void credit(long count) {
        pipe.acknowledge(count);
    }

    private void forward() {
        Object[] batch = new Object[Math.min(MAX_BATCH, Math.max(1, pipe.highWaterMark()))];
        MemoryBuffer out = MemoryBuffer.newHeapBuffer(BYTE_BUDGET + 1024);
        RuntimeException refusal = null;
        try {
            for (int n; (n = pipe.nextRun(batch)) > 0; ) {
                RuntimeException refused = send(batch, n, out);
                Arrays.fill(batch, 0, n, null);
                if (refused != null) {
                    refusal = refused;
                    // The producer stops at its next emit; the execution stays the run's, so that a cancel or
                    // a signal from the caller still reaches a function that goes on after it.
                    pipe.fail(refused);
                    break;
                }
            }
        } catch (RuntimeException ended) {
            // the pipe failed or was stopped: the execution's outcome is the answer
        }
        // The answer follows the run's end; an item that could not cross fails the stream whatever the function did.
        RuntimeException refused = refusal;
        execution.whenComplete((value, failure) -> child.answer(seq, execution, refused == null ? value : null,
                refused == null ? failure : refused));
    }

    /** Sends {@code n} items in as many messages as their size takes; an item that cannot cross is returned. */
    private RuntimeException send(Object[] batch, int n, MemoryBuffer out) {
        RingBuffer replies = child.replies();
        int most = replies.maxMsgLength() - HEADER;
        for (int from = 0; from < n; ) {
            int count = n - from;
            int encoded;
            for (;;) {
                out.writerIndex(0);
                try {
                    encoded = child.codec().encodeItems(batch, from, count, out, BYTE_BUDGET, execution.invocation(), child.name());
                } catch (IllegalArgumentException cannotCross) {
                    if (count == 1) {
                        return cannotCross; // the items before it have gone: the failure comes after them
                    }
                    count /= 2; // the items before the one that cannot cross still go, in smaller messages
                    continue;
                }
                if (out.writerIndex() <= most) {
                    break;
                }
                if (encoded == 1) {
                    return new IllegalStateException("an item of the stream of " + execution.invocation() + " is "
                            + out.writerIndex() + " bytes encoded, more than the " + most + " an isolated worker sends back"
                            + " in one message; emit smaller items, or pass large data in a file");
                }
                count = encoded - 1; // the last one took it over the limit: it goes in the next message
            }
            int length = out.writerIndex();
            int at;
            while ((at = replies.tryClaim(Child.ITEMS, HEADER + length)) < 0) {
                Thread.yield(); // the ring is full: the caller's pump is busy; it needs no ring to go on
            }
            replies.buffer().putLong(at, seq);
            replies.buffer().putInt(at + Long.BYTES, encoded);
            replies.buffer().putBytes(at + HEADER, out.getHeapMemory(), 0, length);
            replies.commit(at);
            child.ringParent();
            from += encoded;
        }
        return null;
    }
}
