package dev.moroutine.isolated.internal;

import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Worker;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.SpscArrayQueue;

/**
 * In the caller's JVM, one stream argument (a stream task or a channel) of a task that runs in a
 * worker JVM: a virtual thread reads the stream's consumer end (what a thread worker's function
 * would receive) and hands the items to the worker's pump through a bounded single-producer queue;
 * the pump encodes what it finds queued as one {@link Child#ARG_ITEMS} message, then
 * {@link Child#ARG_END} or {@link Child#ARG_FAILED} at the end.
 *
 * <h2>Flow control: credit</h2>
 * The feeder hands over at most {@code highWaterMark} items more than the worker's function has
 * taken: the child reports its function's takes ({@link Child#ARG_CREDIT}), the pump records them
 * here ({@link #credit}) and unparks the feeder. So the child's pipe, of the same high-water mark,
 * always has room for what arrives, and its reader never waits for it; items beyond the credit stay
 * in the stream's own pipe here (or, for a channel, in its source, for other consumers to pull). The reader
 * does wait for room in the reply ring when it sends credit, so the pump never waits for room in
 * the request ring: items it took that do not fit are {@link #carried} to its next pass.
 *
 * <h2>Lifetime</h2>
 * The binding is opened when the task becomes the one the child runs (never for a task that waits
 * in the ring, so no item goes to a JVM that dies before the task starts, and is then lost); it
 * is closed when the task completes, which ends the feeder. A channel's item is taken by exactly one
 * feeder, and each feeder's items reach its child once, in order.
 */
final class StreamFeeder {

    /** Queued after the items: the stream ended. */
    static final Object END = new Object();

    private final Endpoint.Binding binding;
    private final int highWaterMark;
    private final Runnable wakePump;
    final long seq;
    final int position;
    /** Items, then {@link #END} or a {@link Failed}; the feeder's thread offers, the pump polls. */
    final SpscArrayQueue<Object> queue;
    private volatile long credited;
    private volatile boolean stopped;
    private Thread thread;
    /** Set on the pump once the binding is open; read there by {@link #stop}. */
    private boolean opened;
    /** The pump's: the end or failure was sent. */
    boolean ended;
    /** The pump's: items taken from {@link #queue} that found the request ring full; they are sent first. */
    final ArrayDeque<Object> carried = new ArrayDeque<>();

    /** The stream failed: the pump sends this instead of {@link #END}. */
    record Failed(Throwable failure) {}

    StreamFeeder(Endpoint.Binding binding, long seq, int position, int highWaterMark, Runnable wakePump) {
        this.binding = binding;
        this.seq = seq;
        this.position = position;
        this.highWaterMark = Math.max(1, highWaterMark);
        this.wakePump = wakePump;
        this.queue = new SpscArrayQueue<>(this.highWaterMark + 2);
    }

    /** Opens the binding on {@code worker} and starts reading it. */
    void start(Worker worker, String name) {
        Object opened = binding.open(worker);
        this.opened = true;
        thread = Thread.ofVirtual().name(name + "-feed-" + seq + "-" + position).start(() -> feed((Iterable<?>) opened));
    }

    private void feed(Iterable<?> items) {
        long offered = 0;
        Object last = END;
        try {
            for (Iterator<?> it = items.iterator(); !stopped && it.hasNext(); ) {
                Object item = it.next();
                while (offered - credited >= highWaterMark) {
                    if (stopped) {
                        return;
                    }
                    LockSupport.park(this);
                }
                queue.offer(item); // never full: at most highWaterMark items, then the end
                offered++;
                wakePump.run();
            }
        } catch (RuntimeException failed) {
            last = new Failed(failed);
        }
        if (!stopped) {
            queue.offer(last);
            wakePump.run();
        }
    }

    /** On the pump: the child's function has taken {@code count} items in all. */
    void credit(long count) {
        if (count > credited) {
            credited = count;
            LockSupport.unpark(thread);
        }
    }

    /** The task completed: the stream's end here is closed, which ends the feeder. */
    void stop() {
        stopped = true;
        if (opened) { // a binding that could not be opened (refused, or its pool closed) has nothing to close
            binding.closeAfterRun();
        }
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }
}
