package dev.moroutine.internal.stream;

import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Channel}: its consumers pull the source themselves, one at a time, under the channel's
 * lock ({@code pulling}); there is no distributor thread, so an item goes from the source to the
 * consumer that asked for it with no hand-off between threads, and a consumer that is quicker
 * than the others takes more of the items.
 *
 * <h2>Pulling</h2>
 * A consumer end ({@link ChannelEnd}) keeps the run it pulled last and hands it out; when that is
 * used up, it takes the lock and pulls the next run: from a {@link Collection}, whose iterator has
 * its items at hand, as many as {@code run} holds (the high-water mark), so the lock is taken
 * once a run; from a pipe (a stream task's, or that of another task's live stream given as the
 * source), the next item (waiting for it) and those already queued behind it, as many again; from
 * any other {@link Iterable}, one item, because its next one may
 * take a while and must not hold back the one already read. A consumer that closes early drops
 * the rest of its run: an item is never given to two consumers, so it cannot be taken back. An end
 * closed from another thread while its own pulls (a worker JVM's feeder, whose task has returned)
 * takes nothing more: once it has the lock it does not pull, and one waiting for a stream task's
 * item is unparked by the close and ends with nothing; an iterable's iterator cannot be woken, so
 * an end closed while it waits in there drops the item it gets. Nor is an end woken that is closed
 * while it waits for the lock: it ends, with nothing, once the holder's pull has ended (an item
 * came, or the channel ended).
 *
 * <p>A stream task's live stream is opened when the first consumer attaches (by the first pull
 * instead when that attach finds the lock held, or runs on the source's worker; see
 * {@code start()}) and read through its {@link Pipe}, and so is a live stream given as the source
 * that a pipe feeds (another task's stream: the channel claims it, so nothing else consumes it,
 * and closes it when it ends): the holder of the lock waits with
 * {@link Pipe#awaitReady}, which an interrupt ends without closing the pipe, so a consumer that is
 * stopped while it waits for the source (its task timed out, its worker stopped) fails alone and
 * the source goes on for the others. The source's items cross one lock hand-over between
 * consumers, whose memory effects make the pipe's consumer-only fields safe to use from each in
 * turn. An {@link Iterable}'s iterator is used under the lock too, on whichever consumer's thread
 * pulls, never on two at once; an exception it throws ends the channel with that failure, unless
 * it says the wait was interrupted (the thread's interrupt status is set, or an
 * {@link InterruptedException} is among its causes): that interrupt was aimed at the consumer (its
 * task timed out, its worker stopped), which fails alone. But another {@link LiveStream} (a
 * {@code map}'s, another channel's end) is cancelled by the interrupt of the thread waiting in it:
 * it cannot go on for the others, so they fail with that cancellation rather than end as if it
 * were exhausted.
 *
 * <h2>Lifecycle</h2>
 * The channel ends once: when the source is exhausted (every consumer then ends after its run),
 * when it fails (every consumer gets the failure, after the items it already pulled), when it was
 * misused (below), or when every consumer end reserved so far has closed ({@code consumers} falls
 * to zero once one has attached: the source is then closed). An end is reserved, and counted, when a task that takes
 * the channel is built ({@link #bind}), so the consumers of one batch all count before the first
 * runs: none finds the channel ended by another that took nothing and closed. A reserved end that
 * never attaches (its task was refused) is released when its execution completes. Reserving an
 * end of an ended channel throws; an end reserved as the channel ends finds it ended at its
 * first pull. The first to end it sets {@code ending} (one CAS): the exhaustion, or the failure. The source's live stream is closed by
 * whoever ends the channel; whoever opens it publishes it ({@code sourceStream}, volatile) and then
 * reads {@code ending}, and an ending writes {@code ending} and then reads {@code sourceStream}, so
 * one of the two closes it however they race.
 *
 * <h2>A consumer on the source's worker</h2>
 * It would wait for itself: whichever of the two that worker runs first, the other waits behind it
 * (a producer blocks at its high-water mark). So such a consumer is refused when it is dispatched
 * (the binding's {@code sentTo}, before it is queued; a task-arg's, before it runs there) or when it
 * joins on that worker, and the channel fails: {@code misuse} is set, then the source's live
 * stream is closed, which wakes a consumer waiting for it; every pull after that, and the pull
 * that was waiting, ends the channel with that error, so no consumer waits for items that will
 * not come.
 *
 * @param <T> the item type
 */
public final class ChannelImpl<T> implements Channel<T>, Endpoint {

    private static final AtomicInteger CHANNELS = new AtomicInteger();
    /** How long a pull waits for a stream task's item between looks at nothing (the wait has no deadline of its own). */
    private static final long AWAIT_NANOS = TimeUnit.HOURS.toNanos(1);
    /** {@code ending} of a channel whose source is exhausted. */
    private static final Object EXHAUSTED = new Object();
    private static final VarHandle MISUSE;
    private static final VarHandle ENDING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            MISUSE = lookup.findVarHandle(ChannelImpl.class, "misuse", IllegalStateException.class);
            ENDING = lookup.findVarHandle(ChannelImpl.class, "ending", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A {@link StreamTask} (run when the first consumer attaches, or by the first pull) or an {@link Iterable}; a
     * stream task's live stream, and a live stream given as the source that is fed by a pipe (another task's), are
     * read through that pipe.
     */
    private final Object source;
    private final int highWaterMark;
    private final String name = "channel-" + CHANNELS.incrementAndGet();
    private final ReentrantLock pulling = new ReentrantLock();
    private final AtomicInteger reservations = new AtomicInteger(); // numbers the consumers in messages
    /** Consumer ends reserved and not closed: see the class comment. */
    private final AtomicInteger consumers = new AtomicInteger();
    /** A consumer has attached: from then on, the last one to close ends the channel. */
    private final AtomicBoolean started = new AtomicBoolean();
    /** The source's items, once opened; under {@code pulling}. */
    private Iterator<? extends T> items;
    /** The pipe of a stream task's live stream (or of one given as the source), read directly; under {@code pulling}. */
    private Pipe<?> sourcePipe;
    /** Null while the channel runs; then {@link #EXHAUSTED} or its failure, set once. */
    private volatile Object ending;
    private volatile IllegalStateException misuse;
    private volatile LiveStream<?> sourceStream;

    /**
     * Makes a channel over local items; nothing is read until a consumer asks for an item.
     *
     * @param source the items
     * @param highWaterMark the most items a consumer pulls at once
     */
    public ChannelImpl(Iterable<? extends T> source, int highWaterMark) {
        this.source = source;
        this.highWaterMark = highWaterMark;
    }

    /**
     * Makes a channel over a stream task, run once, when the first consumer attaches.
     *
     * @param source the task
     * @param highWaterMark the most items a consumer pulls at once
     */
    public ChannelImpl(StreamTask<? extends T> source, int highWaterMark) {
        this.source = source;
        this.highWaterMark = highWaterMark;
    }

    /**
     * Reserves a consumer end for one execution of a task that takes this channel: it counts as a
     * consumer from now on, so the channel does not end under it before it runs.
     *
     * @throws IllegalStateException if the channel has ended
     */
    @Override
    public Endpoint.Binding bind(Invocation consumer) {
        return new ConsumerEnd(consumer, reserve());
    }

    /**
     * One execution's consumer end. {@code state} goes from null to the attached live stream (at
     * admission, or when a task-arg's run opens it) and to {@link #DONE} when the execution
     * completes; whoever comes second closes the end, so an end attached while the execution is
     * being cancelled is closed too, and one that never attached is released.
     */
    private final class ConsumerEnd implements Endpoint.Binding {
        private static final Object DONE = new Object();
        private final Invocation consumer;
        private final ChannelEnd end;
        private final AtomicReference<Object> state = new AtomicReference<>();

        ConsumerEnd(Invocation consumer, ChannelEnd end) {
            this.consumer = consumer;
            this.end = end;
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
                LiveStream<T> live = (LiveStream<T>) known;
                return live;
            }
            LiveStream<T> live = end.stream();
            if (!state.compareAndSet(null, live)) {
                live.close(); // the execution completed meanwhile
            }
            return live;
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
            if (before instanceof LiveStream<?> live) {
                live.close();
            } else if (before == null) {
                end.cancel(); // it never attached: released
            }
        }
    }

    /**
     * A consumer's end: the run it pulled last, and the pull of the next. {@link #next()} is called
     * by the consumer's thread only (the run is that thread's); {@link #cancel()} by any.
     */
    private final class ChannelEnd implements ItemSource {
        private final String description;
        private final Object[] run;
        private final AtomicBoolean closed = new AtomicBoolean();
        /** This end's thread while it waits for a stream task's item, for a close from another thread to wake. */
        private volatile Thread waiting;
        private int taken;
        private int count;

        ChannelEnd(String description) {
            this.description = description;
            this.run = new Object[source instanceof Collection<?> || readsPipe(source) ? highWaterMark : 1];
        }

        /**
         * Attaches this end: the first attach opens the source (see the class comment), unless every
         * end was released before it: a release that saw the channel not yet started did not end it.
         */
        LiveStream<T> stream() {
            if (started.compareAndSet(false, true)) {
                if (consumers.get() == 0) {
                    endChannel(null);
                } else {
                    start();
                }
            }
            return new LiveStreamImpl<>(this, description);
        }

        @Override
        public Object next() {
            if (taken == count) {
                if (closed.get()) {
                    return END;
                }
                pull();
                if (taken == count) {
                    return closed.get() ? END : Pipe.endWith(failure(), description);
                }
            }
            if (closed.get()) {
                Arrays.fill(run, taken, count, null); // dropped: see the class comment
                taken = count;
                return END;
            }
            Object item = run[taken];
            run[taken++] = null;
            return item;
        }

        /** Pulls the next run from the source, unless the channel has ended. */
        private void pull() {
            taken = 0;
            count = 0;
            try {
                pulling.lockInterruptibly();
            } catch (InterruptedException e) {
                throw interrupted();
            }
            try {
                if (ending == null && !closed.get()) { // closed while it waited for the lock: it takes nothing
                    fill();
                }
            } finally {
                pulling.unlock();
            }
        }

        private CancellationException interrupted() {
            cancel(); // a stopping worker, or a caller giving up: this consumer stops, the others go on
            Thread.currentThread().interrupt();
            return new CancellationException("interrupted while waiting for an item of " + description);
        }

        private void fill() {
            try {
                if (misuse != null) {
                    endChannel(null);
                    return;
                }
                if (items == null && !open()) {
                    return;
                }
                if (sourcePipe != null) {
                    fillFromStream();
                } else if (source instanceof Collection<?>) {
                    while (count < run.length && items.hasNext()) {
                        add(items.next());
                    }
                    if (!items.hasNext()) {
                        endChannel(null);
                    }
                } else if (items.hasNext()) {
                    add(items.next());
                } else {
                    endChannel(null);
                }
            } catch (InterruptedException e) {
                throw interrupted(); // waiting for a stream task's item: the task's pipe is left as it was
            } catch (Throwable e) {
                if (sourcePipe == null && interruptedBy(e)) {
                    if (source instanceof LiveStream<?>) { // its waiting consumer's interrupt cancelled it (see ItemSource)
                        endChannel(sourceFailure(e)); // the others fail: they must not end as if it were exhausted
                    }
                    CancellationException stopped = interrupted(); // aimed at this consumer: the source stays for the others
                    stopped.initCause(e);
                    throw stopped;
                }
                endChannel(sourceFailure(e));
            }
        }

        /** Whether an iterable's exception says that it was interrupted: its wait was this consumer's, not its failure. */
        private static boolean interruptedBy(Throwable e) {
            if (Thread.currentThread().isInterrupted()) {
                return true;
            }
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof InterruptedException) {
                    return true;
                }
            }
            return false;
        }

        /** The next item of the stream task, waiting for it, and those queued behind it, up to a run. */
        private void fillFromStream() throws InterruptedException {
            waiting = Thread.currentThread(); // before the wait reads closed: cancel() writes it, then reads this
            try {
                while (!sourcePipe.awaitReady(System.nanoTime() + AWAIT_NANOS, closed::get)) {
                    if (closed.get()) {
                        return; // closed from another thread: it takes nothing, the item goes to another consumer
                    }
                    // an hour without an item: wait again
                }
            } finally {
                waiting = null;
            }
            Object item = sourcePipe.next();
            if (item == END) {
                endChannel(null);
                return;
            }
            add(item);
            while (count < run.length && (item = sourcePipe.poll()) != null) {
                add(item);
            }
        }

        private void add(Object item) {
            if (item == null) {
                throw new NullPointerException("a null item was emitted into " + description
                        + "; streams carry non-null items only (wrap optional values in Optional)");
            }
            run[count++] = item;
        }

        /** The consumer closes: it takes nothing more; the last one to close ends the channel. Idempotent. */
        @Override
        public void cancel() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            Thread waiter = waiting;
            if (waiter != null) {
                LockSupport.unpark(waiter); // its pull ends with nothing: see fillFromStream
            }
            if (consumers.decrementAndGet() == 0 && started.get()) {
                endChannel(null);
            }
        }
    }

    /**
     * Opens the source as the first consumer attaches, so that a stream task starts then, as its
     * documentation says; left to the first pull when a pull holds the lock already (an attach,
     * made while a task is dispatched, never waits) or when the attaching thread runs the source
     * (its join would be refused there).
     */
    private void start() {
        Worker producer = sourceWorker();
        if (producer != null && producer.isCurrent() || !pulling.tryLock()) {
            return;
        }
        try {
            if (items == null && ending == null) {
                open();
            }
        } catch (Throwable e) {
            endChannel(sourceFailure(e));
        } finally {
            pulling.unlock();
        }
    }

    /** Whether the channel reads its source's pipe: a stream task's, or that of a live stream given as the source. */
    private static boolean readsPipe(Object source) {
        return source instanceof StreamTask<?> || source instanceof LiveStreamImpl<?> given && given.source() instanceof Pipe<?>;
    }

    /** Opens the source, under {@code pulling}; false if the channel ended meanwhile (it then closed what it opened). */
    @SuppressWarnings("unchecked") // the constructors admit only sources of T
    private boolean open() {
        LiveStreamImpl<?> live = !readsPipe(source) ? null
                : source instanceof StreamTask<?> task ? (LiveStreamImpl<?>) task.join() : (LiveStreamImpl<?>) source;
        if (live == null) {
            items = ((Iterable<? extends T>) source).iterator();
            return true;
        }
        sourcePipe = (Pipe<?>) live.claimSource(); // a live stream given as the source is consumed here only
        sourceStream = live;
        items = Collections.emptyIterator(); // opened: the pipe is read instead
        if (ending != null) { // every consumer closed meanwhile: see the class comment
            live.close();
            return false;
        }
        return true;
    }

    /**
     * What the source's exception ends the channel with: an iterable's own {@link CancellationException}
     * is its failure, wrapped as a function's is (see Execution); one from a stream task's pipe says
     * that task was stopped, and stays one.
     */
    private Throwable sourceFailure(Throwable e) {
        return e instanceof CancellationException && !(source instanceof StreamTask<?>) ? new CompletionException(e) : e;
    }

    /**
     * Ends the channel (the first call; later ones change nothing but close the source again) with
     * {@code failure}, or with the misuse if there was one, and closes the source's live stream.
     */
    private void endChannel(Throwable failure) {
        IllegalStateException misused = misuse;
        Throwable cause = misused != null ? misused : failure;
        ENDING.compareAndSet(this, null, cause != null ? cause : EXHAUSTED);
        LiveStream<?> live = sourceStream;
        if (live != null) {
            live.close();
        }
    }

    /** What the channel ended with; null while it runs or once its source is exhausted. */
    private Throwable failure() {
        return ending instanceof Throwable failed ? failed : null;
    }

    /** A new consumer end, counted; see the class comment. */
    private ChannelEnd reserve() {
        IllegalStateException misused = misuse; // it fails the channel even before a consumer has pulled
        if (ending != null || misused != null) {
            throw new IllegalStateException(name + " has ended (its source is exhausted, failed, or every consumer"
                    + " closed); make a new channel(source) to stream the items again", misused != null ? misused : failure());
        }
        consumers.incrementAndGet();
        return new ChannelEnd(name + " consumer " + reservations.incrementAndGet());
    }

    /** Adds a consumer that runs on the calling thread and returns its end. */
    LiveStream<T> attach() {
        return onCaller(reserve().stream());
    }

    /** A consumer end attached on the calling thread, unless that thread runs the source: it would wait for itself. */
    private LiveStream<T> onCaller(LiveStream<T> end) {
        Worker producer = sourceWorker();
        if (producer != null && producer.isCurrent()) {
            throw fail("join() on " + Thread.currentThread().getName(), producer);
        }
        return end;
    }

    /** Where {@code task.join()} runs the source (see {@code open()}); null for local items. */
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
                opened.close(); // wakes a consumer waiting for the source's next item
            }
        }
        return refused;
    }

    @Override
    public CompletableFuture<LiveStream<T>> future() {
        return CompletableFuture.completedFuture(attach());
    }

    @Override
    public LiveStream<T> join() {
        return attach();
    }

    @Override
    public String toString() {
        return name;
    }
}
