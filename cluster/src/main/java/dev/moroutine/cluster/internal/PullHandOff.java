package dev.moroutine.cluster.internal;

import dev.moroutine.internal.stream.Pipe;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

/**
 * Who sends a stream's next pull: the consumer's take that reaches the count the pump waits for,
 * on the consumer's own thread, or else the pump. Used by one pump thread per stream.
 *
 * <h2>Why the take sends it</h2>
 * A pull used to leave from the pump: the take that reached its count woke the pump, and the
 * pump, once scheduled, sent it. On a busy machine that wake sat on every batch's round trip (the
 * consumer, having taken everything, waited for it too). Now the take sends the pull itself, as
 * Hazelcast's own callers send their next callable from the thread that read the last answer, and
 * then wakes the pump, which has the whole round trip to come and wait for the answer. The take
 * sends only a pull that leaves the consumer nothing more to take (the pump's count is all it has
 * received): sending encodes a small envelope and hands it to Hazelcast, which returns at once
 * unless its invocation backpressure is on ({@code hazelcast.backpressure.enabled}, off by default:
 * then one send in each sync window waits for its answer), and a consumer that still has items must
 * not wait for that; the pump sends the earlier pulls of a slower consumer, whose items last longer
 * than the wake.
 *
 * <h2>Exactly one sender per pull</h2>
 * Pulls are numbered (generations, from 1). For pull {@code g} the pump arms the pipe
 * ({@link Pipe#wakeOnConsumption(long, Runnable)}): the take that reaches the count, or the
 * pipe's end, or a close, runs the waker once, on its own thread. Whoever sends pull {@code g}
 * first claims it by one CAS of {@code claimed} from {@code g - 1} to {@code g}: the waker if the
 * count is reached when it runs (and the take may send it), or the pump if it finds the count
 * reached when it looks (a take
 * before the arming, or a waker run by another thread's close). So a waker that runs late, after
 * the pump moved on to a later pull, fails its CAS and sends nothing. The sender publishes what
 * it sent ({@code sent}, volatile) and only then wakes the pump; the pump returns it once it sees
 * its generation there, and parks until then, looking each time whether the stream is still
 * wanted (a close or a settle wakes it too). It arms the pipe afresh before each park, and looks
 * once more after arming: a take of an earlier pull that found the pipe armed may spend a later
 * arming (the pipe's one waiting state is taken by a CAS, which cannot tell two armings apart) and
 * run this pull's waker too early, with the count not reached; re-armed, the take that reaches it
 * still wakes the pump. It does not arm when it need not park: an arming left behind costs a
 * needless wake of the pump at a later take.
 */
final class PullHandOff {

    /**
     * A pull on its way, or one that could not leave.
     *
     * @param generation which pull
     * @param answer its answer, or null if it could not be sent
     * @param consumed the consumed count it carries
     * @param sentAt when it left, {@link System#nanoTime()}
     * @param refused why it could not be sent, or null
     */
    record Sent(long generation, Future<byte[]> answer, long consumed, long sentAt, RuntimeException refused) {}

    private final Pipe<?> pipe;
    private final LongFunction<Future<byte[]>> send;
    private final Thread pump;
    private final AtomicLong claimed = new AtomicLong();
    private volatile Sent sent;
    /** The pump's last pull; written and read by the pump only. */
    private long generation;

    /**
     * A hand-off for the pump that calls {@link #next}, on its thread.
     *
     * @param pipe the caller's pipe, whose takes send the pulls
     * @param send sends a pull carrying a consumed count and returns its answer; may throw if it cannot
     */
    PullHandOff(Pipe<?> pipe, LongFunction<Future<byte[]>> send) {
        this.pipe = pipe;
        this.send = send;
        this.pump = Thread.currentThread();
    }

    /**
     * The next pull, sent once the consumer has taken {@code pullAt} items in all: by that take, or
     * by the pump (now, if they are taken already). Parks the pump until then.
     *
     * @param pullAt the consumed count at which the pull leaves
     * @param takeSends whether the take that reaches the count sends the pull (it leaves the consumer
     *     nothing to take), rather than only waking the pump to send it
     * @param wanted whether the stream still wants its items (not closed, not settled); false ends the wait
     * @return the pull, or null if {@code wanted} said no first (a pull may still have left: its answer is dropped)
     */
    Sent next(long pullAt, boolean takeSends, BooleanSupplier wanted) {
        long g = ++generation;
        Runnable waker = () -> {
            if (takeSends && pipe.consumedCount() >= pullAt) {
                claimAndSend(g);
            }
            LockSupport.unpark(pump);
        };
        for (boolean armed = false; ; ) {
            Sent s = sent;
            if (s != null && s.generation() == g) {
                // Nobody else writes it before this pump's next pull (a late waker fails its CAS), and the
                // pipe's waker reaches this object: it must not keep the answer, up to a megabyte, alive.
                sent = null;
                return s;
            }
            if (claimed.get() < g && pipe.consumedCount() >= pullAt) {
                claimAndSend(g);
                continue;
            }
            if (!wanted.getAsBoolean()) {
                return null;
            }
            if (!armed) { // afresh before each park (see the class comment), then look again: one sees the other
                pipe.wakeOnConsumption(pullAt, waker);
                armed = true;
                continue;
            }
            armed = false;
            LockSupport.park(this); // until the sender has published, or a close, a settle or the pipe's end
        }
    }

    private void claimAndSend(long g) {
        if (!claimed.compareAndSet(g - 1, g)) {
            return; // sent by the other side, or a late waker of an earlier pull
        }
        long consumed = pipe.consumedCount();
        long at = System.nanoTime();
        try {
            sent = new Sent(g, send.apply(consumed), consumed, at, null);
        } catch (RuntimeException refused) { // on the consumer's thread too: the pump reports it, not the take
            sent = new Sent(g, null, consumed, at, refused);
        }
    }
}
