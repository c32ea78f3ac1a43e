package dev.moroutine.internal.stream;

import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.SpinBudget;
import dev.moroutine.internal.dispatch.Waiting;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Channel}: one distributor (a virtual thread) that pulls the source and feeds one
 * {@link Pipe} per attached consumer. All pipes share one {@link Pipe.ProducerWait}, so the
 * distributor parks once, when every consumer is at its high-water mark, and any consumer that
 * takes an item (or closes, or attaches) wakes it.
 *
 * <h2>Lifecycle</h2>
 * <pre>
 * NEW ──first attach──► RUNNING ──source exhausted / source failed / every consumer closed / misused──► ENDED
 * </pre>
 * Attaching to an ENDED channel throws. A task's channel arguments are attached all or none, in
 * two steps of its {@link Endpoint.Binding}: each consumer pipe is reserved when the task is built
 * ({@link #bind}: the ENDED check), and the pipes are added to {@code consumers} only once the task's
 * worker has accepted it (the binding's {@code admitted}, called just before it is queued), so a task refused while it is built, or
 * by its worker, leaves no pipe that items are routed to. A channel that ends between the
 * reservation and the add ends that pipe at once. A reserved end that has not attached yet
 * counts as a consumer ({@code unattached}: added to at the reservation, taken from once, by
 * whoever moves the end's state from null, after the pipe's add if it attached): the channel ends
 * for "every consumer closed" only when none is open and none is on its way, so a consumer of a
 * batch that closes before another of the batch attaches (a short task that takes nothing) does
 * not end the channel under it. The distributor reads the count before it scans, so a count of
 * zero covers every pipe added by the time it reads it. The distributor removes a consumer that has
 * closed from {@code consumers} when its scan meets it, so a long-running channel keeps neither
 * its short-lived consumers nor the items they dropped. The
 * distributor ends every open pipe when it stops (with the source's failure, if any), and closes
 * a {@link StreamTask} source it did not drain.
 *
 * <h2>A consumer on the source's worker</h2>
 * It would wait for itself: whichever of the two that worker runs first, the other waits behind it
 * (a producer blocks at its high-water mark). So such a consumer is refused when it is dispatched
 * (the binding's {@code sentTo}, before it is queued; a task-arg's, before it runs there) or when it
 * joins on that worker, and the
 * channel fails: {@code misuse} is set, then the source's live stream is closed and the distributor
 * woken; the distributor, which publishes {@code sourceStream} before it reads {@code misuse} each
 * item, stops and fails every pipe with that error, so no consumer waits for items that will not come.
 *
 * @param <T> the item type
 */
public final class ChannelImpl<T> implements Channel<T>, Endpoint {

    private static final AtomicInteger CHANNELS = new AtomicInteger();
    /** Items of a collection handed to one consumer at once, at most. */
    private static final int MAX_RUN = 64;
    private static final VarHandle MISUSE;

    static {
        try {
            MISUSE = MethodHandles.lookup().findVarHandle(ChannelImpl.class, "misuse", IllegalStateException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A {@link StreamTask} (run once, when the distributor starts) or an {@link Iterable}. */
    private final Object source;
    private final int highWaterMark;
    private final String name = "channel-" + CHANNELS.incrementAndGet();
    private final List<Pipe<T>> consumers = new CopyOnWriteArrayList<>();
    private final AtomicInteger reservations = new AtomicInteger(); // numbers the consumers in messages
    /** Reserved consumer ends that have neither attached nor been released: see the class comment. */
    private final AtomicInteger unattached = new AtomicInteger();
    private final Pipe.ProducerWait distributorWait = new Pipe.ProducerWait();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean ended;
    private volatile Throwable endFailure;
    private volatile IllegalStateException misuse;
    private volatile LiveStream<?> sourceStream;
    private int cursor; // distributor thread only
    private final SpinBudget distributorSpin = new SpinBudget(50_000);

    /**
     * Makes a channel over local items; nothing runs until a consumer attaches.
     *
     * @param source the items
     * @param highWaterMark items in flight per consumer
     */
    public ChannelImpl(Iterable<? extends T> source, int highWaterMark) {
        this.source = source;
        this.highWaterMark = highWaterMark;
    }

    /**
     * Makes a channel over a stream task, run once when the first consumer attaches.
     *
     * @param source the task
     * @param highWaterMark items in flight per consumer
     */
    public ChannelImpl(StreamTask<? extends T> source, int highWaterMark) {
        this.source = source;
        this.highWaterMark = highWaterMark;
    }

    /**
     * Reserves a consumer end for one execution of a task that takes this channel; nothing is
     * routed to it until the task's worker admits the task, so a task refused before then (by its
     * worker, say) leaves no end that items were routed to and that nobody will consume.
     *
     * @throws IllegalStateException if the channel has ended
     */
    @Override
    public Endpoint.Binding bind(Invocation consumer) {
        return reserveEnd(consumer);
    }

    /**
     * One execution's consumer end. {@code state} goes from null to the attached end (at admission,
     * or when a task-arg's run opens it) and to {@link #DONE} when the execution completes; whoever
     * comes second closes the end, so an end attached while the execution is being cancelled is
     * closed too.
     */
    private final class ConsumerEnd implements Endpoint.Binding {
        private static final Object DONE = new Object();
        private final Invocation consumer;
        private final Pipe<T> pipe;
        private final AtomicReference<Object> state = new AtomicReference<>();

        ConsumerEnd(Invocation consumer, Pipe<T> pipe) {
            this.consumer = consumer;
            this.pipe = pipe;
        }

        @Override
        public void sentTo(Worker worker) {
            if (sourceWorker() == worker) {
                throw fail(consumer.toString(), worker);
            }
        }

        @Override
        public void admitted() {
            attachOnce();
        }

        @Override
        public Object open(Worker worker) {
            return worker != null ? attachOnce() : onCaller(attachOnce());
        }

        private LiveStream<T> attachOnce() {
            Object known = state.get();
            if (known instanceof LiveStream<?>) {
                @SuppressWarnings("unchecked") // only this class stores ends, of T
                LiveStream<T> end = (LiveStream<T>) known;
                return end;
            }
            LiveStream<T> end = attach(pipe);
            if (state.compareAndSet(null, end)) {
                attachedOrReleased();
            } else {
                end.close(); // the execution completed meanwhile
            }
            return end;
        }

        @Override
        public void closeAfterRun() {
            close();
        }

        @Override
        public void completed(Throwable failure) {
            close();
        }

        private void close() {
            Object before = state.getAndSet(DONE);
            if (before instanceof LiveStream<?> end) {
                end.close();
            } else if (before == null) {
                attachedOrReleased(); // it never attached
            }
        }
    }

    private Pipe<T> reserve() {
        IllegalStateException misused = misuse; // it fails the channel even before the distributor has started
        if (ended || misused != null) {
            throw new IllegalStateException(name + " has ended (its source is exhausted, failed, or every consumer"
                    + " closed); make a new channel(source) to stream the items again", misused != null ? misused : endFailure);
        }
        return new Pipe<>(highWaterMark, distributorWait, name + " consumer " + reservations.incrementAndGet());
    }

    /** A consumer end reserved for an execution ({@link #bind}): it counts as a consumer until it attaches or is released. */
    private ConsumerEnd reserveEnd(Invocation consumer) {
        Pipe<T> pipe = reserve();
        unattached.incrementAndGet();
        return new ConsumerEnd(consumer, pipe);
    }

    /** A reserved end attached (its pipe added) or was released without attaching: the distributor may wait for it. */
    private void attachedOrReleased() {
        unattached.decrementAndGet();
        distributorWait.wake();
    }

    /**
     * Adds a consumer that runs on the calling thread and returns its end; starts the distributor
     * on the first.
     */
    LiveStream<T> attach() {
        return onCaller(attach(reserve()));
    }

    /** A consumer end attached on the calling thread, unless that thread runs the source: it would wait for itself. */
    private LiveStream<T> onCaller(LiveStream<T> end) {
        Worker producer = sourceWorker();
        if (producer != null && producer.isCurrent()) {
            throw fail("join() on " + Thread.currentThread().getName(), producer);
        }
        return end;
    }

    /** Where the distributor's {@code task.join()} runs the source; null for local items. */
    private Worker sourceWorker() {
        return source instanceof Call<?> task ? task.defaultWorker() : null;
    }

    private IllegalStateException fail(String consumer, Worker worker) {
        IllegalStateException refused = new IllegalStateException(name + " cannot feed " + consumer + ": it runs on "
                + worker + ", which also runs the channel's source, " + source + ", so the consumer would wait for items"
                + " that the source can only produce after it (or behind it): it would wait for itself. Every consumer of "
                + name + " fails with this error. Run the source and the consumers on different workers: assign them to"
                + " different workers of a pool, or run the consumers on a pool and leave the source unassigned (it"
                + " then runs on its moroutine's dedicated worker)");
        if (MISUSE.compareAndSet(this, null, refused)) {
            LiveStream<?> opened = sourceStream;
            if (opened != null) {
                opened.close(); // wakes a distributor waiting for the source's next item
            }
            distributorWait.wake();
        }
        return refused;
    }

    /** Never throws for an ended channel: one that ended since the reservation ends this pipe too. */
    private LiveStream<T> attach(Pipe<T> pipe) {
        consumers.add(pipe);
        if (started.compareAndSet(false, true)) {
            Thread.ofVirtual().name(name + "-distributor").start(this::distribute);
        }
        distributorWait.wake();
        if (ended) { // the distributor may have taken its final snapshot before the add: end this pipe too
            Throwable failed = endFailure;
            if (failed == null) {
                pipe.finish();
            } else {
                pipe.fail(failed);
            }
        }
        return new LiveStreamImpl<>(pipe, name);
    }

    @Override
    public CompletableFuture<LiveStream<T>> future() {
        return CompletableFuture.completedFuture(attach());
    }

    @Override
    public LiveStream<T> join() {
        return attach();
    }

    @SuppressWarnings("unchecked") // the constructors admit only sources of T
    private void distribute() {
        LiveStream<? extends T> live = null;
        Throwable failure = null;
        try {
            Iterator<? extends T> items;
            if (source instanceof StreamTask<?> task) {
                live = (LiveStream<? extends T>) task.join();
                sourceStream = live;
                items = live.iterator();
            } else {
                items = ((Iterable<? extends T>) source).iterator();
            }
            if (source instanceof Collection<?>) {
                deliverRuns(items);
                return;
            }
            while (misuse == null && items.hasNext()) {
                if (!deliver(items.next())) {
                    return;
                }
            }
        } catch (Throwable e) {
            // An iterable's own CancellationException is its failure, wrapped as a function's is (see
            // Execution); one from a stream task's live stream says that task was stopped, and stays one.
            failure = e instanceof CancellationException && !(source instanceof StreamTask<?>) ? new CompletionException(e) : e;
        } finally {
            if (misuse != null) {
                failure = misuse; // what the source threw, if anything, came from closing it
            }
            endFailure = failure;
            ended = true;
            if (live != null) {
                live.close();
            }
            for (Pipe<T> consumer : consumers) {
                if (failure == null) {
                    consumer.finish();
                } else {
                    consumer.fail(failure);
                }
            }
        }
    }

    /** Hands one item to a consumer with room; false if none is left (every consumer closed, or the channel was misused). */
    private boolean deliver(T item) {
        for (;;) {
            Pipe<T> target = readyConsumer();
            if (target == null) {
                return false;
            }
            try {
                target.emit(item);
                return true;
            } catch (CancellationException closed) {
                if (!target.cancelled()) {
                    throw closed;
                }
                // that consumer closed after it was chosen: the item goes to another one
            }
        }
    }

    /**
     * Hands the items of a collection over in runs: a collection's iterator has its items at hand,
     * so reading ahead delays none, and a run that fits in its consumer's room is emitted with one
     * fence and one look at that consumer, not one an item. A run is all or nothing (it fits), so
     * the run of a consumer that closed first goes, item by item, to the others. The items read
     * before a null one (which fails the channel as an emit of it does) or before the iterator
     * throws are delivered first.
     */
    private void deliverRuns(Iterator<? extends T> items) {
        @SuppressWarnings("unchecked") // holds only the source's items, of T
        T[] run = (T[]) new Object[Math.min(MAX_RUN, highWaterMark)];
        while (misuse == null && items.hasNext()) {
            Pipe<T> target = readyConsumer();
            if (target == null) {
                return;
            }
            int most = Math.min(run.length, target.room());
            int n = 0;
            T item = null;
            try {
                do {
                    item = items.next();
                    if (item != null) {
                        run[n++] = item;
                    }
                } while (item != null && n < most && items.hasNext());
            } catch (RuntimeException | Error broken) {
                emitRun(target, run, n);
                throw broken;
            }
            if (!emitRun(target, run, n) || item == null && !deliver(null)) {
                return;
            }
        }
    }

    /** Emits a run that fits in {@code target}'s room; if it closed first, the items go to the others one by one. */
    private boolean emitRun(Pipe<T> target, T[] run, int n) {
        try {
            target.emitRun(run, n);
            return true;
        } catch (CancellationException closed) {
            if (!target.cancelled()) {
                throw closed;
            }
            for (int i = 0; i < n; i++) {
                if (!deliver(run[i])) {
                    return false;
                }
            }
            return true;
        } finally {
            Arrays.fill(run, 0, n, null);
        }
    }

    /**
     * The next consumer with room, scanning from a rotating cursor; parks while all are at their
     * cap. Null once every consumer that attached has closed, or the channel was misused. Closed
     * consumers that a scan meets are removed after it (attaches only append, so the scan's
     * indices stay valid).
     */
    private Pipe<T> readyConsumer() {
        long budget = distributorSpin.next();
        long start = System.nanoTime();
        boolean parked = false;
        for (int spins = 1; ; spins++) {
            boolean onTheirWay = unattached.get() > 0; // before the scan: see the class comment
            List<Pipe<T>> all = consumers;
            int size = all.size();
            boolean open = false;
            boolean closedSeen = false;
            Pipe<T> chosen = null;
            for (int i = 0; i < size; i++) {
                int index = (cursor + i) % size;
                Pipe<T> candidate = all.get(index);
                if (candidate.cancelled()) {
                    closedSeen = true;
                    continue;
                }
                open = true;
                if (candidate.hasRoom()) {
                    cursor = index + 1;
                    chosen = candidate;
                    break;
                }
            }
            if (closedSeen) {
                consumers.removeIf(Pipe::cancelled); // neither it nor the items it dropped are kept while the channel runs
            }
            if (chosen != null) {
                if (spins > 1) {
                    distributorSpin.ended(start, budget, !parked);
                }
                return chosen;
            }
            if (!open && !onTheirWay || misuse != null) { // none open: every consumer closed (the first was added before this started)
                return null;
            }
            if (!Waiting.pause(start, spins, budget)) {
                parked = true;
                distributorWait.park(this::anyReady);
            }
        }
    }

    private boolean anyReady() {
        if (misuse != null) {
            return true;
        }
        boolean onTheirWay = unattached.get() > 0;
        boolean open = false;
        for (Pipe<T> consumer : consumers) {
            if (!consumer.cancelled()) {
                open = true;
                if (consumer.hasRoom()) {
                    return true;
                }
            }
        }
        return !open && !onTheirWay;
    }

    @Override
    public String toString() {
        return name;
    }
}
