package dev.moroutine.internal.stream;

import dev.moroutine.TaskFailedException;
import dev.moroutine.internal.dispatch.SpinBudget;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.LiveStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;

/**
 * A bounded single-producer single-consumer hand-off of a stream's items, with backpressure: the
 * producer blocks while {@code highWaterMark} items are in flight (emitted, not yet consumed).
 *
 * <h2>State</h2>
 * <pre>
 * OPEN ──producer finishes─────────────────────────────────► DONE      (the consumer drains what is queued, then ends)
 *   ├───producer fails──► FAILING ──failure published──────► DONE      (… then throws the failure, again at every next())
 *   └───consumer closes─────────────────────────────────────► CANCELLED (the producer's next emit throws CancellationException)
 * DONE ──consumer closes──► CANCELLED                                   (the producer is gone: only the consumer stops)
 * </pre>
 * Only one of the three CASes from OPEN wins. FAILING lasts while {@code fail} writes the failure
 * before DONE; a consumer that finds it spins until DONE, so it never reads a DONE without its failure,
 * and so does a closing consumer, because {@code fail} writes DONE without a CAS. Once CANCELLED,
 * {@code next()} returns END without looking at the queue: what is queued, and a failure, are dropped.
 *
 * <h2>Waiting</h2>
 * Both sides spin briefly, then park. The producer writes an item (or a stretch of a run,
 * {@link #emitRun}), fences, and reads {@code consumerParked}; the consumer sets it, fences and polls again before parking, so a wake
 * is never lost. The consumer publishes its count with a release store, no fence, and then reads
 * the producer's parked flag ({@code ProducerWait.waiting}): with a fence at every take the
 * worker→caller stream ran 5–11 M items/s, without it 14–15 (2 cores, alternating runs). So a take
 * that overlaps a producer's announcement that it parks may miss it, while the producer,
 * re-checking for room, misses the take's count (the store still on its way). A producer's wait for
 * room, eager or lazy, therefore stays timed for its first {@code ProducerWait.SETTLE_NANOS} and
 * looks for room again before it parks on: by then the overlapping take's store has reached it (a
 * store leaves its core's buffer within nanoseconds, and HotSpot's compiled code keeps a VarHandle
 * access in its place among the accesses around it), and every take after the announcement sees
 * it. A consumer about to park fences and wakes a parked producer too, so a missed wake costs at
 * most the settle time, and only when the consumer stops taking right after the take that made
 * room. A producer in another process, which waits through {@link #wakeOnConsumption} where no
 * timer looks again, gets fenced takes instead ({@link #producedElsewhere}). So neither side can
 * sleep forever while the other has made room or items.
 *
 * <p>While both sides run, an item costs what its cache lines cost to move between the cores, so
 * each side keeps off the other's lines: the producer reads the consumer's count only when the
 * room it last saw is used up ({@code roomLimit}), each side's counts lie on lines of their own
 * ({@link PipeLayout}), and a consumer that finds the queue empty looks again only after a
 * microsecond ({@link #lookAgainLater}; with a high-water mark of 64 or more), by when a producer
 * that is emitting has filled a few slots, instead of taking the head slot's line back at every one
 * of the producer's writes. (Measured
 * with the worker→caller stream of the bench on 2 cores: the later look alone changed nothing, nor
 * did the other two without it; all three took it from 6–9 to 10–30 M items/s.)
 *
 * <p>Each side's spin budget is its own, adaptive, unless the pipe is given one that suits a chain
 * of threads across processes ({@link #waitsWith}).
 *
 * <p>A producer that had to park for room does not go on at the first take: on a busy machine
 * the woken producer takes the core from the consumer that woke it, emits the one item there is
 * room for and parks again, so the two would take turns an item at a time. So once the first take
 * has woken it (any take wakes an {@code EAGER} producer), it parks again, {@code LAZY}, until at
 * most half the high-water mark (the low tide) is in flight: the consumer wakes a lazy producer
 * only at a take that leaves the queue at or below the low tide, and an end wakes it as always. The
 * same pairing holds, with the same second look: the producer announces {@code LAZY}, then reads
 * the count; the consumer stores its count, then reads the announcement, and, seeing {@code LAZY},
 * the queue, which then holds everything the parked producer emitted. A consumer that takes an
 * item and then stops taking (to wait for something the producer does next, say) must not hold it up for
 * ever, so a lazy wait has a timer, {@link #LAZY_WAIT_NANOS} (the OS may add its timer slack,
 * tens of microseconds); a producer that finds no room at all parks {@code EAGER}, untimed once
 * its settle time is over, so a stalled consumer costs no CPU. A forwarding pipe's room
 * comes in acknowledged runs, so its producer never waits lazily.
 *
 * <p>The consumer waits lazily too, the mirror image: on a busy machine a consumer woken at each
 * item takes it, finds the queue empty and parks again, and every item pays a wake-up (measured:
 * the worker→caller stream fell to about 0.2 M items/s with one core kept busy). So the first park
 * of a consumer's wait announces {@code PARKED_LAZY}, with the same timer: an emit wakes it only
 * once {@link #batchWake} items are queued (a quarter of the high-water mark, at most
 * {@value #MAX_BATCH_WAKE}; never with a mark below 8, nor in a forwarding pipe, whose queue may
 * hold less than a batch while its producer waits for acknowledgements), and an end wakes it as
 * always. A lazy wait whose timer ends it finds what came meanwhile; one that finds nothing parks
 * {@code PARKED_EAGER}, untimed, so an idle stream costs no CPU; a stray unpark (a permit another
 * wait of the consumer's thread left) ends neither. The same pairing holds: the
 * consumer announces, fences and reads the queue's size; the producer stores its item, fences and
 * reads the announcement, then the size. A consumer whose lazy wait ended by its timer with an
 * item queued held that item up for nothing (the producer emits a few, then waits: for this
 * consumer's answer, say, in a round trip), so its next {@value #WAITS_AFTER_LAZY_MISS} waits
 * park eagerly, and a producer that stops short of a batch costs at most one timer in that many waits.
 * A forwarder's wait for a batch ({@link #awaitItems}) is a lazy wait too, for the count it names
 * (written before the announcement, read by the producer after it) and until its own deadline
 * rather than the timer; a forwarding pipe's consumer never waits lazily otherwise.
 *
 * <p>A producer in another process (a worker JVM's pump, see
 * {@link #wakeOnConsumption(long, Runnable)}) waits for a step of takes rather than one: it arms
 * a wake, one object that holds the count it waits for and what wakes it, then reads the count
 * taken; a take stores its count, then reads the arming. So the take that reaches the count sees
 * the arming, or the producer sees that take; the takes before it do not wake the producer for
 * nothing; and a take runs the wake it read, by a CAS on that very arming, so a take that decided
 * on one arming's count never runs the next one's (armed by a producer that saw the count itself,
 * and went on) early.
 *
 * <p>The consumer's thread is recorded only while it may park:
 * it is forgotten when the consumer wakes and when the pipe ends, so that the pipe, which a
 * live stream's cleaner keeps until the stream is unreachable, does not keep an ended consumer
 * thread reachable, nor what its task holds (a publisher's subscriber).
 *
 * <h2>Ending</h2>
 * A stop (a timeout, a forced stop) fails the pipe from another thread, maybe while the producer
 * is between its check of the state and its item store; the consumer may then find the pipe
 * ended and empty, and end without that item. So the producer reads the state again after its
 * store (and the fence), and both sides that see the ended pipe settle how many items the
 * consumer takes, by one CAS on {@code settled}: the consumer offers the count it has taken, a
 * late emit the count emitted with its item. If the emit settles first, the consumer takes its
 * item (already in the queue) before it ends; if the consumer settled first without it, the emit
 * is refused, and the consumer, once ended, never polls again. A producer that reads the state
 * still open after its store needs no CAS: the end comes later, and a consumer that sees it polls
 * once more. A producer waiting for room reads the room before the state, so a stop while it
 * waits refuses its item; the stop wakes it, as a stop need not interrupt it (a future
 * completed from outside) and a close after the stop wakes nobody. A close needs none of this:
 * a closed consumer takes nothing more. So every emit that returns is delivered, unless the
 * consumer closed, and nothing is delivered after the end.
 *
 * <p>Several pipes may share one {@link ProducerWait}, so that one producer feeding them waits in one place.
 *
 * @param <T> the item type
 */
public final class Pipe<T> extends PipeLayout.ConsumerPadding implements Emitter<T>, ItemSource {

    private static final int OPEN = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;
    private static final int FAILING = 3; // fail() won the state: the failure is being published
    private static final int SPIN_NANOS = 50_000;
    /**
     * See {@link #lazyWaitNanos}: long enough for a busy consumer to take half a window, or a producer
     * to emit a batch, short beside a park.
     */
    private static final long LAZY_WAIT_NANOS = 50_000;
    /** The most items a lazily parked consumer waits for: see {@link #batchWake}. */
    private static final int MAX_BATCH_WAKE = 64;
    /** After a lazy wait that held up an item for nothing, the consumer waits this many times without one. */
    private static final int WAITS_AFTER_LAZY_MISS = 64;
    /** Values of {@code consumerParked}: awake, parked until the next item, parked until a batch of items (or its timer). */
    private static final int AWAKE = 0;
    private static final int PARKED_EAGER = 1;
    private static final int PARKED_LAZY = 2;
    /** {@code settled} before the consumer or a late emit has settled how the pipe ends. */
    private static final long UNSETTLED = -1;
    /** See {@link #lookAgainLater}: about the time a producer takes to fill a cache line of the queue's slots (16 items). */
    private static final long LOOK_AGAIN_NANOS = 1_000;
    /**
     * The least high-water mark at which a consumer looks again later ({@link #lookAgainLater}):
     * four cache lines of slots. A smaller queue is one or two lines that both sides touch anyway,
     * and its producer, which fills it within the microsecond, would only wait for room.
     */
    private static final int LOOK_AGAIN_MIN_HIGH_WATER_MARK = 64;

    private static final VarHandle STATE;
    private static final VarHandle CONSUMED;
    private static final VarHandle CONSUMER_PARKED;
    private static final VarHandle PRODUCER;
    private static final VarHandle SETTLED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(Pipe.class, "state", int.class);
            CONSUMED = lookup.findVarHandle(Pipe.class, "consumed", long.class);
            CONSUMER_PARKED = lookup.findVarHandle(Pipe.class, "consumerParked", int.class);
            PRODUCER = lookup.findVarHandle(Pipe.class, "producer", Thread.class);
            SETTLED = lookup.findVarHandle(Pipe.class, "settled", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Where a producer waits for room: its own, or one shared by the pipes one producer feeds. It
     * waits {@link #EAGER}ly (any take wakes it) or {@link #LAZY}ly (a take wakes it once few items
     * are left in flight; a timer bounds the wait); a take that overlaps the announcement may miss
     * it, so each wait looks again after {@link #SETTLE_NANOS}. A producer in another process does
     * not park here: it {@link #arm arms} a wake, which a take runs (see the class comment).
     */
    static final class ProducerWait {
        /** {@code parked}: a producer that any take (or an end) wakes. */
        static final int EAGER = 1;
        /** {@code parked}: a producer that a take wakes only at its pipe's low tide; an end wakes it too. */
        static final int LAZY = 2;

        /**
         * How long a producer's wait for room stays timed before it looks for room again (see
         * {@link #settle}): far longer than a store takes to reach another core.
         */
        static final long SETTLE_NANOS = 50_000;

        private static final VarHandle PARKED;
        private static final VarHandle ARMED;

        static {
            try {
                PARKED = MethodHandles.lookup().findVarHandle(ProducerWait.class, "parked", int.class);
                ARMED = MethodHandles.lookup().findVarHandle(ProducerWait.class, "armed", Arming.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile int parked;
        private volatile Thread thread;
        /** The wake of a producer that waits elsewhere (a pump feeding from another process); null when none is armed. */
        private volatile Arming armed;

        /** A wake {@link #arm armed}: the consumed count from which a take runs it, and what it runs. */
        private record Arming(long count, Runnable waker) {}

        /**
         * Parks the calling producer unless {@code ready} holds after announcing it; a take wakes it
         * (see {@link #settle} for the one that overlaps the announcement).
         */
        void park(java.util.function.BooleanSupplier ready) {
            thread = Thread.currentThread();
            parked = EAGER;
            if (!ready.getAsBoolean() && settle(EAGER, ready, SETTLE_NANOS)) {
                LockSupport.park(this);
            }
            parked = 0;
        }

        /**
         * Parks the calling producer for at most {@code nanos} unless {@code ready} holds after
         * announcing it; only a take that reaches the low tide, an end, or the timer wakes it (see
         * {@link #settle} for the take that overlaps the announcement).
         */
        void parkLazily(java.util.function.BooleanSupplier ready, long nanos) {
            thread = Thread.currentThread();
            parked = LAZY;
            if (!ready.getAsBoolean()) {
                long deadline = System.nanoTime() + nanos;
                if (settle(LAZY, ready, Math.min(nanos, SETTLE_NANOS))) {
                    parkUntil(LAZY, deadline);
                }
            }
            parked = 0;
        }

        /**
         * The first {@code nanos} (at most {@link #SETTLE_NANOS}) of a wait announced as {@code mode}:
         * timed, then {@code ready} is looked at again. A take publishes its count without a fence
         * (see the class comment), so a take that overlapped the announcement may not have seen it,
         * nor this producer its count then; by the second look the count has reached this thread,
         * and every later take sees the announcement.
         *
         * @return whether the wait goes on: no wake, interrupt or readiness ended it
         */
        private boolean settle(int mode, java.util.function.BooleanSupplier ready, long nanos) {
            parkUntil(mode, System.nanoTime() + nanos);
            return parked == mode && !Thread.currentThread().isInterrupted() && !ready.getAsBoolean();
        }

        /** Parks while announced as {@code mode}, until a wake, an interrupt or {@code deadline}. */
        private void parkUntil(int mode, long deadline) {
            Thread current = Thread.currentThread();
            // A wake moves parked to 0 before it unparks; a stray unpark (one aimed at an earlier wait) leaves it as it was.
            for (long left = deadline - System.nanoTime(); parked == mode && left > 0 && !current.isInterrupted();
                    left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(this, left);
            }
        }

        /** How the producer waits now: 0 (it does not), {@link #EAGER} or {@link #LAZY}. */
        int waiting() {
            return parked;
        }

        /** Wakes the producer however it waits, parked here or armed: an end, a stop. */
        void wake() {
            wakeParked();
            runArmedFrom(Long.MAX_VALUE);
        }

        /** Wakes the producer if it is parked here, whichever way it waits. */
        void wakeParked() {
            int mode = parked;
            if (mode != 0) {
                wakeFrom(mode);
            }
        }

        /** Wakes the producer if it still waits as {@code mode}: a take that saw it EAGER must not end a later LAZY wait. */
        void wakeFrom(int mode) {
            if (PARKED.compareAndSet(this, mode, 0)) {
                LockSupport.unpark(thread);
            }
        }

        /**
         * Runs the armed wake if the consumed count {@code consumed} reached its count: the arming
         * read is the one its CAS takes, so a wake decided on one arming's count never runs a later
         * arming's; if the producer armed again meanwhile, the new arming is looked at.
         */
        void runArmedFrom(long consumed) {
            for (Arming arming = armed; arming != null && consumed >= arming.count(); arming = armed) {
                if (ARMED.compareAndSet(this, arming, null)) {
                    arming.waker().run();
                    return;
                }
            }
        }

        /**
         * A producer that does not park here announces it waits: the take that brings the consumed
         * count to {@code consumed} (or any later one) runs {@code action}, once, as does the pipe's
         * end. An arming not yet run is replaced.
         */
        void arm(long consumed, Runnable action) {
            armed = new Arming(consumed, action); // volatile, as the producer's next read of the count taken (consumedCount)
        }
    }

    private final SpscAtomicArrayQueue<Object> queue;
    private final int highWaterMark;
    /** A producer that has waited for room goes on once at most this many items are in flight: half the mark. */
    private final int lowTide;
    /** The longest lazy wait: the producer's for the low tide once a take has made room, the consumer's for a batch (see the class comment). */
    private final long lazyWaitNanos;
    /** How many queued items wake a lazily parked consumer; 0 when the consumer never parks lazily (see the class comment). */
    private final int batchWake;
    /**
     * The consumer forwards its items to a consumer in another process, which acknowledges them
     * ({@link #acknowledge}): its own takes do not make room, so the producer's lead is counted
     * against the remote consumer.
     */
    private final boolean forwarding;
    /** See {@link #producedInTurns}. */
    private volatile boolean producerTakesTurns;
    /** See {@link #producedElsewhere}. */
    private volatile boolean producedElsewhere;
    private final ProducerWait producerWait;
    private final String description;
    /** Whether a consumer that found the queue empty and may spin looks again later: see {@link #lookAgainLater}. */
    private final boolean looksAgainLater;

    // The producer's and the consumer's own fields are in PipeLayout, on cache lines of their own.
    /** How many items the consumer takes in all once the pipe has ended: see the class comment. */
    private volatile long settled = UNSETTLED;
    private volatile int state = OPEN;
    private volatile Throwable failure;
    private volatile int consumerParked;
    /**
     * How many queued items wake the consumer while it is parked lazily: {@code batchWake}, or what a
     * forwarder awaits ({@link #awaitItems}). Written by the consumer before it announces the park,
     * read by the producer after it reads the announcement.
     */
    private int lazyWakeAt;
    private volatile Thread consumer;
    private volatile Runnable onCancel;
    /** Where the stream was opened, for a close() that waits on its producer; written before dispatch. */
    private String openedAt = "an unknown place";
    /** Volatile, as {@code consumerSpin}: see {@link #waitsWith}. */
    private volatile SpinBudget producerSpin = new SpinBudget(SPIN_NANOS);
    private volatile SpinBudget consumerSpin = new SpinBudget(SPIN_NANOS);

    Pipe(int highWaterMark, ProducerWait producerWait, String description) {
        this(highWaterMark, producerWait, description, false);
    }

    private Pipe(int highWaterMark, ProducerWait producerWait, String description, boolean forwarding) {
        this(highWaterMark, producerWait, description, forwarding, LAZY_WAIT_NANOS);
    }

    /**
     * A pipe whose lazy waits (the producer's for the low tide, the consumer's for a batch) last at
     * most {@code lazyWaitNanos}: tests make them long, so that only the other side can end them.
     */
    Pipe(int highWaterMark, ProducerWait producerWait, String description, boolean forwarding, long lazyWaitNanos) {
        this.forwarding = forwarding;
        this.highWaterMark = highWaterMark;
        this.lowTide = highWaterMark / 2;
        this.lazyWaitNanos = lazyWaitNanos;
        int batch = Math.min(MAX_BATCH_WAKE, highWaterMark / 4);
        this.batchWake = forwarding || batch < 2 ? 0 : batch; // a forwarder's queue holds less than its producer's lead
        this.queue = new SpscAtomicArrayQueue<>(Math.max(2, highWaterMark));
        this.producerWait = producerWait;
        this.description = description;
        this.looksAgainLater = highWaterMark >= LOOK_AGAIN_MIN_HIGH_WATER_MARK;
    }

    Pipe(int highWaterMark, String description) {
        this(highWaterMark, new ProducerWait(), description);
    }

    /**
     * A pipe whose consumer forwards the items to another process (a worker JVM's output): room is
     * made by {@link #acknowledge}, when the consumer over there has taken them, so the producer
     * stays at most {@code highWaterMark} items ahead of that consumer.
     *
     * @param highWaterMark the most items emitted and not acknowledged
     * @param description for messages
     * @return the pipe
     */
    public static Pipe<Object> forwarding(int highWaterMark, String description) {
        return new Pipe<>(highWaterMark, new ProducerWait(), description, true);
    }

    /**
     * A pipe fed from another process (a worker JVM's stream argument), {@linkplain #producedInTurns
     * in turns} by whichever thread reads that process's messages.
     *
     * @param highWaterMark the most items emitted and not taken
     * @param description for messages
     * @return the pipe
     */
    public static Pipe<Object> of(int highWaterMark, String description) {
        Pipe<Object> pipe = new Pipe<>(highWaterMark, description);
        pipe.producedInTurns();
        pipe.producedElsewhere();
        return pipe;
    }

    /**
     * The producer is in another process: it does not wait in {@link #emit} but through
     * {@link #wakeOnConsumption}, so each take publishes its count with a fence (the StoreLoad that
     * lets it and the producer's arming see each other) rather than relying on a timed wait for
     * room. Call before the first item is emitted, so that every take sees it.
     */
    public void producedElsewhere() {
        producedElsewhere = true;
    }

    /**
     * From now on, items may be emitted by several threads that take turns, one at a time, each turn
     * happening-before the next: the threads that read another process's messages (a worker JVM's
     * reader and worker thread; in the caller's JVM, its pump and the callers that read answers while
     * it sleeps). Any other pipe allows one producer thread only, and refuses another's emit.
     */
    public void producedInTurns() {
        producerTakesTurns = true;
    }

    /**
     * From now on, the producer's wait for room and the consumer's wait for items use
     * {@code budget}: a pipe whose items or room come from another process, handed over along a
     * chain of more threads than cores, waits {@linkplain SpinBudget#yielding yielding} (see there),
     * where the pipe's own adaptive budgets would soon park at every wait, and each wake-up would
     * cost the other side a system call. A wait already under way keeps the budget it began with.
     *
     * @param budget a yielding budget, which never adapts, so both sides and several pipes may share it
     */
    public void waitsWith(SpinBudget budget) {
        producerSpin = budget;
        consumerSpin = budget;
    }

    /**
     * The consumer's end of this pipe, as a function receives a stream.
     *
     * @return the live stream; closing it cancels the pipe
     */
    public LiveStream<Object> consumerEnd() {
        return new LiveStreamImpl<>(this, description);
    }

    /**
     * The remote consumer of a {@link #forwarding} pipe has taken {@code count} items in all.
     *
     * @param count the total taken, never less than before
     */
    public void acknowledge(long count) {
        if (count > (long) CONSUMED.getAcquire(this)) {
            CONSUMED.setVolatile(this, count); // StoreLoad against the read of parked and of the arming
            producerWait.wakeParked();
            producerWait.runArmedFrom(count); // the arming counts what is acknowledged: consumedCount()
        }
    }

    /**
     * The stream's high-water mark.
     *
     * @return the most items the producer may be ahead
     */
    public int highWaterMark() {
        return highWaterMark;
    }

    /**
     * How many items the consumer has taken, for a producer in another process that is given room
     * as they are taken.
     *
     * @return the count
     */
    public long consumedCount() {
        // Volatile, not acquire: a producer that armed a wake (a volatile store) reads this next, and only a
        // volatile read is ordered after that store by the memory model (a plain load on x86 and AArch64 either way).
        return (long) CONSUMED.getVolatile(this);
    }

    /**
     * For a producer that feeds this pipe from another process and never blocks in {@link #emit}:
     * the consumer's next take (or the end of the pipe) runs {@code waker}, once. Arm, then look at
     * {@link #consumedCount()} again: one of the two sees the other.
     *
     * @param waker what wakes the producer's thread
     * @throws IllegalStateException if the pipe was not marked {@link #producedElsewhere}
     */
    public void wakeOnConsumption(Runnable waker) {
        wakeOnConsumption(Long.MIN_VALUE, waker);
    }

    /**
     * Like {@link #wakeOnConsumption(Runnable)}, for a producer that has nothing to do until the
     * consumer has taken {@code consumed} items in all (credit owed in steps): the takes before do
     * not run {@code waker}, which would wake it for nothing; the take that reaches the count (or a
     * later one, or the end of the pipe) runs it, once.
     *
     * @param consumed the consumed count that wakes the producer
     * @param waker what wakes the producer's thread
     * @throws IllegalStateException if the pipe was not marked {@link #producedElsewhere}
     */
    public void wakeOnConsumption(long consumed, Runnable waker) {
        if (!producedElsewhere) {
            throw new IllegalStateException(description + " was not marked producedElsewhere() before its first item,"
                    + " so its takes may not see a producer that waits for them here");
        }
        producerWait.arm(consumed, waker);
    }

    /** Records where the stream was opened (see {@link Streams#openingSite()}); call before the producer is dispatched. */
    void openedAt(String site) {
        openedAt = site;
    }

    String openedAt() {
        return openedAt;
    }

    /** What to run when the consumer closes early (cancel the producer's execution, say). */
    void onCancel(Runnable action) {
        onCancel = action;
    }

    // ---------------------------------------------------------------- producer side

    @Override
    public void emit(T item) {
        if (item == null) {
            throw new NullPointerException("a null item was emitted into " + description
                    + "; streams carry non-null items only (wrap optional values in Optional)");
        }
        Thread current = Thread.currentThread();
        if (producer != current) {
            claimProducer(current);
        }
        if (emitted >= roomLimit || state != OPEN) {
            roomLimit = (long) CONSUMED.getAcquire(this) + highWaterMark;
            if (emitted >= roomLimit || state != OPEN) {
                awaitRoom();
            }
        }
        queue.offer(item);
        emitted++;
        VarHandle.fullFence(); // the item store before the reads of state and consumerParked: see the class comment
        if (state != OPEN) {
            settleLateItem();
        }
        wakeConsumer();
    }

    /**
     * Emits {@code count} items of {@code run}, from index 0, in order, as that many {@link #emit}
     * calls would, for a pump handing over a batch that came from another process: each stretch
     * that fits in the room there is costs one fence and one look at the consumer, not one an item
     * (the fence after a stretch's last store orders all its stores before the read of
     * {@code consumerParked}, as emit's does for one; see the class comment).
     *
     * @param run the items; not null
     * @param count how many, from index 0
     * @throws IllegalArgumentException if {@code count} is negative or beyond the run, before any is emitted
     * @throws NullPointerException if an item is null, before any is emitted
     * @throws CancellationException as {@link #emit} does; the items of the run before the one refused may have been delivered
     */
    public void emitRun(T[] run, int count) {
        if (count < 0 || count > run.length) {
            throw new IllegalArgumentException("a run of " + count + " items was emitted into " + description + " from an array of "
                    + run.length + "; the count must be between 0 and the array's length");
        }
        for (int i = 0; i < count; i++) {
            if (run[i] == null) {
                throw new NullPointerException("a null item was emitted into " + description + " (item " + i + " of a run of "
                        + count + "); streams carry non-null items only (wrap optional values in Optional)");
            }
        }
        Thread current = Thread.currentThread();
        if (producer != current) {
            claimProducer(current);
        }
        for (int i = 0; i < count; ) {
            long room = highWaterMark - (emitted - (long) CONSUMED.getAcquire(this));
            if (room <= 0 || state != OPEN) {
                awaitRoom();
                continue;
            }
            int stretch = (int) Math.min(room, count - i);
            for (int end = i + stretch; i < end; i++) {
                queue.offer(run[i]);
            }
            emitted += stretch;
            VarHandle.fullFence(); // the stretch's stores before the reads of state and consumerParked, as in emit
            if (state != OPEN) {
                settleLateItem();
            }
            wakeConsumer();
        }
    }

    /**
     * The pipe ended between this emit's check and its item store, so the consumer may already
     * have ended without the item: the item is delivered, or the emit is refused, whichever the
     * one CAS on {@code settled} says (see the class comment). After a run's stretch, the count
     * emitted covers the whole stretch.
     */
    private void settleLateItem() {
        long taken = (long) SETTLED.compareAndExchange(this, UNSETTLED, emitted);
        if (taken != UNSETTLED && taken < emitted) {
            throw refused(state);
        }
    }

    private CancellationException refused(int s) {
        if (s == CANCELLED) {
            return new CancellationException("the consumer of " + description + " closed it");
        }
        return new CancellationException(description + " has ended (its producer was stopped, or emitted after it"
                + " returned); nothing more can be emitted");
    }

    private void claimProducer(Thread current) {
        if (producerTakesTurns) {
            producer = current;
            return;
        }
        if (!PRODUCER.compareAndSet(this, null, current) && producer != current) {
            throw new IllegalStateException(current.getName() + " emitted into " + description + ", whose producer is "
                    + producer.getName() + ": an Emitter is used by its moroutine's own thread only (not from a parallel"
                    + " stream or another thread); collect on that thread and emit from it");
        }
    }

    @Override
    public boolean cancelled() {
        return state == CANCELLED;
    }

    /**
     * Whether an emit would not block now (for a feeder that must not block).
     *
     * @return whether there is room
     */
    public boolean hasRoom() {
        return emitted - (long) CONSUMED.getAcquire(this) < highWaterMark;
    }

    /**
     * How many items an emit would take now without blocking; for the producer's thread.
     *
     * @return the room, 0 if none
     */
    public int room() {
        return (int) Math.max(0, highWaterMark - (emitted - (long) CONSUMED.getAcquire(this)));
    }

    /**
     * Pulls a stream into the pipe on the producer's thread, then closes the stream.
     *
     * @param items the producer's stream
     */
    public void pump(Stream<? extends T> items) {
        if (items == null) {
            throw new NullPointerException("the streaming moroutine of " + description + " returned null instead of a Stream");
        }
        try (Stream<? extends T> source = items) {
            // Pushed, not pulled: a stage's tryAdvance buffers what one source element yields (all of a
            // flatMap's inner stream, say) and pays for that buffer per item; forEachRemaining hands each
            // item to emit as it comes, on this thread, in order, blocking under backpressure.
            source.spliterator().forEachRemaining(this::emit);
        }
    }

    /** The producer has emitted everything. */
    public void finish() {
        if (STATE.compareAndSet(this, OPEN, DONE)) {
            VarHandle.fullFence();
            forceWakeConsumer();
        }
    }

    /**
     * The producer failed (or was stopped): the consumer gets the items so far, then this.
     *
     * @param cause the failure
     */
    public void fail(Throwable cause) {
        if (STATE.compareAndSet(this, OPEN, FAILING)) { // only the winner records a failure
            failure = cause;
            state = DONE;
            producerWait.wake(); // a stop from another thread may find the producer waiting for room
            forceWakeConsumer();
        }
    }

    private void awaitRoom() {
        SpinBudget spin = producerSpin;
        long budget = spin.next();
        long start = System.nanoTime();
        boolean parked = false;
        for (int spins = 1; ; spins++) {
            boolean room = hasRoom(); // before the state: a stop while waiting for room refuses the item
            int s = state;
            if (s != OPEN) {
                throw refused(s);
            }
            if (Thread.interrupted()) {
                throw new CancellationException(description + " was stopped: its producer was interrupted");
            }
            if (room) {
                spin.ended(start, budget, !parked);
                return;
            }
            if (!spin.pause(start, spins, budget)) {
                parked = true;
                producerWait.park(() -> hasRoom() || state != OPEN);
                if (!forwarding && state == OPEN && hasRoom() && inFlight() > lowTide) { // a take made room: let more of them come
                    producerWait.parkLazily(() -> inFlight() <= lowTide || state != OPEN, lazyWaitNanos);
                }
            }
        }
    }

    /** Items emitted and not yet taken, as the producer sees it. */
    private long inFlight() {
        return emitted - (long) CONSUMED.getVolatile(this);
    }

    private void wakeConsumer() {
        int parked = consumerParked;
        if (parked == PARKED_EAGER ? CONSUMER_PARKED.compareAndSet(this, PARKED_EAGER, AWAKE)
                : parked == PARKED_LAZY && queue.size() >= lazyWakeAt && CONSUMER_PARKED.compareAndSet(this, PARKED_LAZY, AWAKE)) {
            LockSupport.unpark(consumer);
        }
    }

    private void forceWakeConsumer() {
        Thread waiting = consumer;
        consumer = null; // the pipe has ended: its consumer never parks again
        consumerParked = AWAKE;
        if (waiting != null) {
            LockSupport.unpark(waiting);
        }
    }

    // ---------------------------------------------------------------- consumer side

    /**
     * Takes the next item, blocking while none is ready.
     *
     * @return the item, or {@link #END} (always, once the consumer has cancelled)
     * @throws TaskFailedException if the producer failed, after every item it emitted before
     * @throws CancellationException if the producer was stopped before it finished, or the waiting consumer was interrupted
     */
    @Override
    public Object next() {
        if (state == CANCELLED) {
            return END; // the consumer closed: untaken items are dropped
        }
        if (ended) {
            return end(); // a late item left in the queue is not taken: see the class comment
        }
        Object item = queue.poll();
        if (item == null) {
            item = awaitItem();
            if (item == END) {
                return END;
            }
        }
        taken();
        return item;
    }

    private void taken() {
        consumedLocal++;
        if (!forwarding) {
            if (producedElsewhere) {
                CONSUMED.setVolatile(this, consumedLocal); // StoreLoad against the read of the arming: see the class comment
                producerWait.runArmedFrom(consumedLocal);
            } else {
                CONSUMED.setRelease(this, consumedLocal); // no fence: a producer's wait for room settles instead
            }
            int waiting = producerWait.waiting();
            // A lazy producer parked after its last item: the queue holds all it emitted and not yet taken.
            if (waiting == ProducerWait.EAGER || waiting == ProducerWait.LAZY && queue.size() <= lowTide) {
                producerWait.wakeFrom(waiting);
            }
        }
    }

    /**
     * Like {@link #next()}, with null for the end.
     *
     * @return the item, or null at the end
     */
    public Object nextOrNull() {
        Object item = next();
        return item == END ? null : item;
    }

    /**
     * Takes a run of items for a forwarder: the next one, waiting for it, then those already queued,
     * up to {@code into.length}.
     *
     * @param into where they go, from index 0; not empty
     * @return how many were taken; 0 at the end
     * @throws IllegalArgumentException if {@code into} is empty, before any item is taken
     * @throws TaskFailedException if the producer failed, after every item it emitted before
     * @throws CancellationException if the producer was stopped before it finished
     */
    public int nextRun(Object[] into) {
        if (into.length == 0) { // else the item taken would have nowhere to go, and 0 would say the end
            throw new IllegalArgumentException("a run of " + description + " was taken into an empty array;"
                    + " give it room for one item at least");
        }
        Object item = nextOrNull();
        if (item == null) {
            return 0;
        }
        into[0] = item;
        int n = 1;
        while (n < into.length && (item = poll()) != null) {
            into[n++] = item;
        }
        return n;
    }

    /**
     * Takes an item already queued, without waiting (a forwarder filling a batch after {@link #next()}).
     *
     * @return the item, or null if none is queued now
     */
    public Object poll() {
        if (ended || state == CANCELLED) {
            return null;
        }
        Object item = queue.poll();
        if (item != null) {
            taken();
        }
        return item;
    }

    private Object awaitItem() {
        SpinBudget spin = consumerSpin;
        long budget = spin.next();
        long start = System.nanoTime();
        boolean interrupted = false;
        boolean parked = false;
        try {
            for (int spins = 1; ; spins++) {
                boolean later = looksAgainLater && budget > 0 && !parked;
                if (later) {
                    lookAgainLater(); // next() found the queue empty just now; after a park, the wake says an item came
                }
                Object item = queue.poll();
                if (item != null) {
                    spin.ended(start, budget, !parked);
                    return item;
                }
                int s = state;
                if (s == FAILING) {
                    Thread.onSpinWait(); // the failure is being published
                    continue;
                }
                if (s == CANCELLED) {
                    return END; // the consumer closed: untaken items are dropped
                }
                if (s != OPEN) {
                    item = queue.poll(); // items emitted before the end come first
                    if (item != null) {
                        return item;
                    }
                    if (settleEnd()) {
                        return end();
                    }
                    continue; // a late emit settled first: its item is in the queue
                }
                if (!(later ? spin.pauseAfterSpin(start, budget) : spin.pause(start, spins, budget))) {
                    boolean lazy = !parked && waitsLazily(); // the wait's first park only: then it waits for the next item
                    parked = true;
                    if (announceConsumerParked(lazy ? PARKED_LAZY : PARKED_EAGER, batchWake)) {
                        if (lazy) {
                            waitLazily();
                        } else {
                            LockSupport.park(this);
                        }
                        if (Thread.interrupted()) { // a stopping worker, or a caller giving up: stop waiting
                            interrupted = true;
                            cancel();
                            throw new CancellationException("interrupted while waiting for an item of " + description);
                        }
                    }
                    consumerParked = AWAKE;
                    consumer = null;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The consumer found the queue empty while it may spin (and has not parked: a wake says an item
     * came): it looks again only after
     * {@link #LOOK_AGAIN_NANOS}, so that a producer that is emitting writes a few items into slots
     * the consumer is not reading. A consumer that read the head slot in a tight loop would take its
     * cache line back from the producer at each of the producer's writes, and every item would then
     * cross between the cores on its own; so the consumer takes them a few at a time.
     *
     * <p>Such a step is long, so the wait reads the clock at each one ({@link SpinBudget#pauseAfterSpin}):
     * with one core kept busy by another process, the producer and the consumer often share the
     * other core, taking turns of a queue's worth of items, and a consumer that read the clock only
     * every 16th step, as short steps do, spun 16 µs of its turn before it yielded. The
     * worker→caller stream then went at 6.6–7.9 M items/s; yielding within the microsecond,
     * 15.1–19.3 (JMH, 2 cores, paired runs; 30–33 either way with no core busy).
     */
    private static void lookAgainLater() {
        long until = System.nanoTime() + LOOK_AGAIN_NANOS;
        // About a microsecond's worth of pauses where a pause is short; it ends the wait when the clock stands still (a model
        // checker's does), which must not look like a loop that never ends.
        for (int spins = 0; spins < 32 && System.nanoTime() < until; spins++) {
            Thread.onSpinWait();
        }
    }

    /**
     * The consumer is about to park: it announces so, fences, and looks once more (the other half
     * of an emit's store, fence and read of {@code consumerParked}; see the class comment).
     *
     * @param how {@code PARKED_EAGER}, or {@code PARKED_LAZY} until {@code wakeAt} items are queued
     * @return whether it may park: the queue still holds less than it waits for, and the pipe is open
     */
    private boolean announceConsumerParked(int how, int wakeAt) {
        consumer = Thread.currentThread();
        lazyWakeAt = wakeAt;
        consumerParked = how;
        VarHandle.fullFence();
        // A stale read on the fast path may have left the producer asleep.
        producerWait.wakeParked();
        producerWait.runArmedFrom(forwarding ? consumedCount() : consumedLocal); // a forwarding pipe's armings count acknowledgements
        return (how == PARKED_LAZY ? queue.size() < wakeAt : queue.isEmpty()) && state == OPEN;
    }

    /**
     * The consumer's lazy wait, announced: until a wake (the emit that completes a batch, or an end),
     * an interrupt or the timer.
     */
    private void waitLazily() {
        long left = parkLazilyUntil(System.nanoTime() + lazyWaitNanos);
        if (left <= 0 && consumerParked == PARKED_LAZY && !queue.isEmpty()) {
            waitsWithoutBatch = WAITS_AFTER_LAZY_MISS; // its timer ended it: the producer stopped short of a batch
        }
    }

    /**
     * Parks the consumer, announced {@code PARKED_LAZY}, until a wake, an interrupt or
     * {@code deadline}. A stray unpark does not end it: the consumer's thread may be left a permit by
     * another of its waits (a publisher's deliverer, unparked by its subscriber's request).
     *
     * @return the nanoseconds left until the deadline, 0 or less if it came
     */
    private long parkLazilyUntil(long deadline) {
        Thread current = Thread.currentThread();
        long left = deadline - System.nanoTime();
        while (consumerParked == PARKED_LAZY && left > 0 && !current.isInterrupted()) {
            LockSupport.parkNanos(this, left);
            left = deadline - System.nanoTime();
        }
        return left;
    }

    /** Whether the consumer's next park waits for a batch: see the class comment. */
    private boolean waitsLazily() {
        if (batchWake == 0) {
            return false;
        }
        if (waitsWithoutBatch > 0) {
            waitsWithoutBatch--;
            return false;
        }
        return true;
    }

    /**
     * For a forwarder that must answer by a deadline (a cluster member serving its owner's pulls):
     * waits, as {@link #next()} would, until {@code next()} would not block (an item is queued, or
     * the pipe has ended or was cancelled), or until {@code deadline}. Takes nothing. Called by the
     * consumer, as {@code next()} is; the wait announces itself as a parked consumer the same way,
     * so an emit or an end wakes it.
     *
     * @param deadline the {@link System#nanoTime()} by which it returns
     * @return whether {@code next()} would not block; false when the deadline came first
     * @throws InterruptedException if the waiting thread is interrupted (the pipe is left as it is)
     */
    public boolean awaitReady(long deadline) throws InterruptedException {
        return awaitReady(deadline, () -> false);
    }

    /**
     * Like {@link #awaitReady(long)}, but returns false as soon as {@code giveUp} holds: it is read
     * first at each look, before the pipe, so whoever makes it hold and then unparks the waiting
     * thread ends the wait, even if an item came meanwhile (a channel's consumer end closed from
     * another thread while it waits for its source).
     *
     * @param deadline the {@link System#nanoTime()} by which it returns
     * @param giveUp whether to stop waiting
     * @return whether {@code next()} would not block; false when the deadline came first or {@code giveUp} held
     * @throws InterruptedException if the waiting thread is interrupted (the pipe is left as it is)
     */
    boolean awaitReady(long deadline, BooleanSupplier giveUp) throws InterruptedException {
        SpinBudget spin = consumerSpin;
        long budget = spin.next();
        long start = System.nanoTime();
        boolean parked = false;
        for (int spins = 1; ; spins++) {
            if (giveUp.getAsBoolean()) { // first: an item that came with the wake that says so is not the waiter's
                return false;
            }
            if (ended || state != OPEN || !queue.isEmpty()) {
                spin.ended(start, budget, !parked);
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            boolean later = looksAgainLater && budget > 0 && !parked;
            if (later) {
                lookAgainLater();
            }
            long limit = Math.min(budget, deadline - start); // both from the start of the wait, as the pause measures
            if (!(later ? spin.pauseAfterSpin(start, limit) : spin.pause(start, spins, limit))) {
                left = deadline - System.nanoTime(); // the look again may have taken the wait past its deadline
                if (left <= 0) {
                    continue; // the next look says so, without a park that would overshoot it
                }
                parked = true;
                if (announceConsumerParked(PARKED_EAGER, 0)) {
                    LockSupport.parkNanos(this, left);
                }
                consumerParked = AWAKE; // a wake that raced the deadline leaves at most a stray unpark, which waits loop over
                consumer = null;
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for an item of " + description);
                }
            }
        }
    }

    /**
     * For a forwarder that answers with a batch (a cluster member serving its owner's pulls): parks,
     * without spinning, until {@code count} items are queued, or the pipe has ended or was
     * cancelled, or {@code until}; takes nothing. The producer's emits do not wake it before the
     * count, so a producer that emits the batch has the core to itself and wakes it once; a
     * forwarder that awaits what the producer may still emit (its room, as acknowledged) is woken
     * when the producer runs out of room, and the deadline covers a producer that pauses short of it.
     * Called by the consumer, as {@link #next()} is; the wait is announced as a lazily parked consumer's.
     *
     * @param count the items that end the wait; 1 or more
     * @param until the {@link System#nanoTime()} by which it returns
     * @return whether {@code next()} would not block (an item is queued, or the pipe has ended)
     * @throws InterruptedException if the waiting thread is interrupted (the pipe is left as it is)
     */
    public boolean awaitItems(int count, long until) throws InterruptedException {
        while (!ended && state == OPEN && queue.size() < count && until - System.nanoTime() > 0) {
            if (announceConsumerParked(PARKED_LAZY, count)) {
                parkLazilyUntil(until);
            }
            consumerParked = AWAKE;
            consumer = null;
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for items of " + description);
            }
        }
        return ended || state != OPEN || !queue.isEmpty();
    }

    /**
     * The consumer found the ended pipe empty: it ends now, unless a late emit settled first with
     * items it has not taken yet (see the class comment).
     */
    private boolean settleEnd() {
        long owed = (long) SETTLED.compareAndExchange(this, UNSETTLED, consumedLocal);
        ended = owed == UNSETTLED || consumedLocal >= owed;
        return ended;
    }

    /** The end the consumer sees once the producer has ended: nothing more, or the failure. */
    private Object end() {
        return endWith(failure, description);
    }

    /**
     * The end a consumer sees of a source that ended with {@code cause}: {@link #END} when there is
     * none; a stop's {@link CancellationException} again; any other failure as a {@link TaskFailedException}.
     *
     * @param cause the source's failure, or null
     * @param description the consumer's, for the message
     * @return {@link #END} when {@code cause} is null
     */
    static Object endWith(Throwable cause, String description) {
        if (cause == null) {
            return END;
        }
        if (cause instanceof CancellationException stopped) {
            CancellationException here = new CancellationException(stopped.getMessage());
            here.initCause(stopped);
            throw here;
        }
        // A producer's own CancellationException comes wrapped (see Execution): it failed, it was not stopped.
        Throwable thrown = cause instanceof CompletionException wrapped && wrapped.getCause() != null ? wrapped.getCause() : cause;
        throw new TaskFailedException(description + " failed: " + thrown, thrown);
    }

    /**
     * The consumer closes: the producer, if still at work, stops at its next emit; queued items and
     * a failure not yet thrown are dropped. Idempotent, from any thread.
     */
    @Override
    public void cancel() {
        if (STATE.compareAndSet(this, OPEN, CANCELLED)) {
            producerWait.wake();
            forceWakeConsumer(); // a deliverer blocked on this pipe (a publisher's) must see the end
            Runnable action = onCancel;
            if (action != null) {
                action.run();
            }
            return;
        }
        // The pipe has ended, and its end woke a producer waiting for room: only later next() calls change.
        for (int s; (s = state) != CANCELLED && !(s == DONE && STATE.compareAndSet(this, DONE, CANCELLED)); ) {
            Thread.onSpinWait(); // FAILING: fail() is about to write DONE
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
