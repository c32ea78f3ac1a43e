package dev.moroutine.internal.call;

import dev.moroutine.AbortController;
import dev.moroutine.Balancer;
import dev.moroutine.Pool;
import dev.moroutine.Signal;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.Batch;
import dev.moroutine.internal.dispatch.BatchesUnderWay;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.ThreadWorker;
import dev.moroutine.internal.dispatch.Waiting;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.internal.dispatch.SpinGate;
import dev.moroutine.internal.dispatch.WorkerGroup;
import dev.moroutine.stream.LiveStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link Pool}: an array of {@link Worker}s (made by a {@link Backend}: threads unless
 * told otherwise) and a balancer. See {@link Pool}
 * for the shutdown state machine; {@code state} is OPEN, CLOSING or CLOSED, and each worker keeps
 * its own lifecycle, which is what actually stops dispatch.
 *
 * <p>{@link #close()} waits on each worker's stopped latch: in slices of the warning interval, so
 * that a worker held for long (by a stream nobody reads, typically) is logged instead of waited on
 * in silence; and, after interrupting, for at most {@link #STOP_GRACE}, so that a task which ignores
 * the interrupt cannot hold it, while one that obeys has ended and closed its worker's values.
 *
 * <p>The array is fixed for a pool of threads. A backend whose workers come and go (the members of
 * a cluster) calls {@link #addWorker} and {@link #removeWorker}: each publishes new arrays (copy on
 * write, under the pool's lock), so a balancer sees a consistent snapshot per task. Two arrays:
 * {@code workers}, what balancers choose from, and {@code members}, which also keeps the workers
 * that were removed but have not stopped yet, so that {@link #close()} drains and waits for them and
 * {@link #terminate()} stops them like any other (removed workers that have stopped are dropped
 * from it at the next change). A worker is started outside the lock (a remote start may be slow)
 * and published under it only if the pool is still open, so it is never added once close() or
 * terminate() has taken its snapshot of the members; one that started too late is stopped. A task
 * whose chosen worker leaves before it is queued there, and refuses it, is placed again.
 */
public final class WorkerPool implements Pool, WorkerGroup {

    private static final System.Logger LOG = System.getLogger(WorkerPool.class.getName());
    private static final AtomicInteger POOLS = new AtomicInteger();
    /** How long {@link #close()} waits for the workers after interrupting them. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(1);
    /** How often a {@link #close()} that is still waiting says what for. */
    private static final Duration HELD_WARNING_INTERVAL = Duration.ofSeconds(10);

    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(WorkerPool.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    /** Replaced, never modified, by {@link #addWorker} and {@link #removeWorker}, under {@code this}. */
    private volatile Worker[] workers;
    /** Empty while the constructor starts the workers, whose threads may already ask for it. */
    private volatile List<WorkerHandle> handles = List.of();
    /** {@code workers} and the removed ones not yet seen stopped; replaced under {@code this}. */
    private Worker[] members;
    /** The index the next added worker gets; under {@code this}. */
    private int nextIndex;
    private final Balancer balancer;
    /** Whether idle workers may take unassigned tasks waiting at others: see {@link #sharesWork}. */
    private final boolean spreadsLoad;
    private final Duration shutdownTimeout;
    private final Duration taskTimeout;
    private final int highWaterMark;
    private final SpinGate spinGate = new SpinGate();
    private final BatchesUnderWay batches = new BatchesUnderWay();
    private final AbortController shutdown = new AbortController();
    private volatile int state = OPEN;
    private volatile Duration warningInterval = HELD_WARNING_INTERVAL;

    /** Makes a pool's workers: the seam a backend implements, besides {@link Worker}. */
    @FunctionalInterface
    public interface Backend {
        /**
         * Makes and starts one worker of a pool.
         *
         * @param name the worker's name
         * @param index its position in the pool
         * @param pool the pool, whose settings hold for the tasks it runs
         * @return the worker, ready to accept executions
         */
        Worker start(String name, int index, WorkerGroup pool);
    }

    /** Workers that are platform threads. */
    public static final Backend THREADS = (name, index, pool) -> {
        ThreadWorker worker = new ThreadWorker(name, index, pool);
        worker.start();
        return worker;
    };

    /**
     * Makes and starts a pool.
     *
     * @param size the number of workers, at least 1
     * @param balancer the balancer
     * @param shutdownTimeout how long {@link #close()} waits before interrupting, or null for no limit
     * @param threadNamePrefix the thread name prefix, or null for {@code moroutine-pool-<n>}
     * @param highWaterMark stream items in flight before a producer blocks
     * @param taskTimeout how long a task without its own timeout may run, or null for no limit
     * @param backend makes the workers
     */
    public WorkerPool(int size, Balancer balancer, Duration shutdownTimeout, String threadNamePrefix, int highWaterMark,
            Duration taskTimeout, Backend backend) {
        this.name = threadNamePrefix != null ? threadNamePrefix : "moroutine-pool-" + POOLS.incrementAndGet();
        this.balancer = balancer;
        this.spreadsLoad = Balancers.spreadsLoad(balancer);
        this.shutdownTimeout = shutdownTimeout;
        this.taskTimeout = taskTimeout;
        this.highWaterMark = highWaterMark;
        Worker[] made = new Worker[size];
        for (int i = 0; i < size; i++) {
            made[i] = backend.start(name + "-worker-" + i, i, this);
        }
        this.workers = made;
        this.members = made;
        this.handles = List.of(made);
        this.nextIndex = size;
    }

    /**
     * Adds a worker, made by {@code backend} with the next index (indices are never reused), for a
     * backend whose workers come and go. Balancers see it from the next task on.
     *
     * @param backend makes the worker
     * @return the worker
     * @throws RejectedExecutionException if the pool is closing or closed
     */
    public Worker addWorker(Backend backend) {
        int index;
        synchronized (this) {
            if (state != OPEN) {
                throw new RejectedExecutionException(name + " is closed, so it takes no new worker");
            }
            index = nextIndex++;
        }
        Worker added = backend.start(name + "-worker-" + index, index, this);
        synchronized (this) {
            if (state == OPEN) {
                Worker[] grown = Arrays.copyOf(workers, workers.length + 1);
                grown[workers.length] = added;
                workers = grown;
                handles = List.of(grown);
                members = withoutStopped(grown);
                return added;
            }
        }
        String why = name + " was closed while " + added + " started";
        added.forceStop(why);
        throw new RejectedExecutionException(why + "; it takes no new worker");
    }

    /**
     * Takes a worker out of the pool: balancers no longer see it, a task assigned to it is refused
     * by it, and the backend stops it ({@link Worker#forceStop}) and settles its tasks. Until it has
     * stopped, {@link #close()} still waits for it and {@link #terminate()} stops it.
     *
     * @param worker one of this pool's workers
     * @return whether it was one of them (and is no longer)
     */
    public synchronized boolean removeWorker(Worker worker) {
        Worker[] current = workers;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == worker) {
                Worker[] shrunk = new Worker[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                workers = shrunk;
                handles = List.of(shrunk);
                members = withoutStopped(shrunk);
                return true;
            }
        }
        return false;
    }

    /** {@code current} and the former members that have not stopped yet; under {@code this}. */
    private Worker[] withoutStopped(Worker[] current) {
        List<Worker> kept = new ArrayList<>(Arrays.asList(current));
        for (Worker member : members) {
            if (!kept.contains(member) && !member.isStopped()) {
                kept.add(member);
            }
        }
        return kept.toArray(Worker[]::new);
    }

    /**
     * The members (removed workers that may still run included), read under the lock after a change
     * of state, so that no worker is added after this snapshot.
     */
    private synchronized Worker[] snapshot() {
        return members;
    }

    /** A channel does not run on a worker: like its {@code join()}, running it attaches a consumer on the caller. */
    @Override
    public <R> R run(Task<R> task) {
        if (!(Objects.requireNonNull(task, "task") instanceof Call<R> call)) {
            checkOpen(task);
            return task.join();
        }
        for (;;) {
            Worker worker = place(call);
            try {
                return call.runOn(worker);
            } catch (RejectedExecutionException refused) { // from the dispatch: a task's own failure comes wrapped
                if (!left(call, worker)) {
                    throw refused;
                }
            }
        }
    }

    @Override
    public <R> CompletableFuture<R> submit(Task<R> task) {
        if (!(Objects.requireNonNull(task, "task") instanceof Call<R> call)) {
            checkOpen(task);
            return task.future();
        }
        for (;;) {
            Worker worker = place(call);
            try {
                return call.submitTo(worker);
            } catch (RejectedExecutionException refused) {
                if (!left(call, worker)) {
                    throw refused;
                }
            }
        }
    }

    /*
     * runAll's hot loops each live in a method of their own. In one method, each of them made C2 compile
     * the whole of runAll, with all it inlines, for on-stack replacement, and then once more whole:
     * 0.3 s of compiler time in a JVM's first second (JFR's jdk.Compilation), which on two cores is
     * taken from the workers. Split, the JVM's first 200 ms of the mixed CPU-bound batch took 1.5-1.7 ms
     * a batch instead of 1.7-2.2; in JMH's quick window (2 x 200 ms warm-up, then 4 x 200 ms) five paired
     * forks went from 0.98-1.04 ms to 0.94-0.98, five more on a noisier machine overlapped (0.99-1.24, 0.98-1.16).
     */
    @Override
    @SuppressWarnings("unchecked") // each result came from a Task<? extends R>
    public <R> List<R> runAll(List<? extends Task<? extends R>> tasks) {
        Objects.requireNonNull(tasks, "tasks");
        requireNoNullTask(tasks); // refuse a bad list before anything runs
        checkOpen(tasks);
        List<Call.Prepared<? extends R>> prepared = new ArrayList<>(tasks.size());
        List<CompletableFuture<? extends R>> futures = new ArrayList<>(tasks.size());
        Batch batch = null;
        boolean underWay = false;
        Throwable failure = null;
        Object[] results;
        RuntimeException[] failures;
        try {
            try {
                // Every execution is built, so every channel end it takes directly reserved, before the
                // first is sent: a consumer that drains a channel first leaves the others no items, never
                // a refusal for an ended channel. (An end an inner stream task or a task-arg takes is
                // reserved when that task is built, on the worker: the README says so.)
                prepareAll(tasks, prepared);
                // The pool's thread workers run the calls in this order, whichever each is sent to (see Batch).
                batch = new Batch(prepared.size());
                batches.started(batch); // ended below, once every result is in, or whatever ends this call
                underWay = true;
                sendAll(prepared, batch, futures);
            } catch (RuntimeException | Error refused) { // refused, or the pool closed part-way: still wait for what was sent
                failure = refused;
                for (int i = futures.size(); i < prepared.size(); i++) {
                    prepared.get(i).abandon(refused);
                }
            }
            results = new Object[futures.size()];
            failures = new RuntimeException[futures.size()];
            awaitAll(futures, results, failures);
        } finally {
            try {
                if (underWay) { // first: a batch left under way would keep every worker on the slower path for good
                    batches.ended(batch);
                }
            } finally {
                if (batch != null) {
                    batch.ended();
                }
            }
        }
        failure = withSuppressed(failure, failures);
        if (failure != null) {
            closeOpenedStreams(futures);
            if (failure instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) failure;
        }
        return (List<R>) Collections.unmodifiableList(Arrays.asList(results));
    }

    private static void requireNoNullTask(List<? extends Task<?>> tasks) {
        for (Task<?> task : tasks) {
            Objects.requireNonNull(task, "a task in the list is null");
        }
    }

    private <R> void prepareAll(List<? extends Task<? extends R>> tasks, List<Call.Prepared<? extends R>> prepared) {
        for (Task<? extends R> task : tasks) {
            prepared.add(task instanceof Call<? extends R> call ? call.prepare(this) : Call.Prepared.attached(task));
        }
    }

    private <R> void sendAll(List<Call.Prepared<? extends R>> prepared, Batch batch, List<CompletableFuture<? extends R>> futures) {
        int added = 0;
        for (Call.Prepared<? extends R> next : prepared) {
            if (next.call() == null) {
                futures.add(next.sendTo(null));
                continue;
            }
            batch.add(added, next.execution());
            futures.add(sendPlaced(next));
            batch.sent(++added);
        }
    }

    /** Each result, or its failure, into the same position; a failure does not stop the wait for the others. */
    private static void awaitAll(List<? extends CompletableFuture<?>> futures, Object[] results, RuntimeException[] failures) {
        // Last sent first: it is the likeliest to finish last, so the caller usually parks once for the
        // batch instead of waking for each task while the workers still compute.
        for (int i = results.length - 1; i >= 0; i--) {
            try {
                results[i] = futures.get(i) instanceof Execution<?> execution
                        ? Waiting.await(execution)
                        : futures.get(i).join(); // a stream, already open
            } catch (RuntimeException e) {
                failures[i] = e;
            }
        }
    }

    /** The first failure, with the others suppressed in it; null for none. */
    private static Throwable withSuppressed(Throwable first, RuntimeException[] failures) {
        Throwable failure = first;
        for (RuntimeException e : failures) {
            if (e == null) {
                continue;
            }
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        return failure;
    }

    /** The streams a failed batch opened: nobody gets them to read or close, and each would hold its producer's worker. */
    private static void closeOpenedStreams(List<? extends CompletableFuture<?>> futures) {
        for (CompletableFuture<?> future : futures) {
            if (!(future instanceof Execution<?>) && future.join() instanceof LiveStream<?> opened) {
                opened.close();
            }
        }
    }

    /**
     * Sends a batch's prepared call where {@link #place} says, again if that worker left meanwhile:
     * the same execution, which keeps what it reserved (a channel end may find the channel drained
     * by another of the batch if it reserved again).
     */
    private <R> CompletableFuture<R> sendPlaced(Call.Prepared<R> prepared) {
        for (;;) {
            Worker worker = place(prepared.call());
            try {
                return prepared.offerTo(worker);
            } catch (RejectedExecutionException refused) {
                if (!left(prepared.call(), worker)) {
                    prepared.abandon(refused);
                    throw refused;
                }
            }
        }
    }

    /**
     * Whether a refusal came from a worker that the balancer chose and that left the pool before
     * the call was queued there: such a call is placed again (an assigned one is not).
     */
    private boolean left(Call<?> call, Worker worker) {
        return call.assigned() == null && state == OPEN && !Arrays.asList(workers).contains(worker);
    }

    /** The worker that runs {@code call}: its assignment, or the balancer's choice. */
    private Worker place(Call<?> call) {
        checkOpen(call);
        return route(call);
    }

    private void checkOpen(Object task) {
        if (state != OPEN) {
            throw new RejectedExecutionException(name + " is closed, so it cannot run " + task
                    + "; submit tasks before close(), or make a new pool with workers(n)");
        }
    }

    @Override
    public ExecutorService asExecutorService() {
        return new ExecutorView(this);
    }

    @Override
    public WorkerHandle workerFor(Task<?> task) {
        return route(Call.of(task));
    }

    private Worker route(Call<?> call) {
        return call.assigned() != null ? own(call) : select(call);
    }

    private Worker own(Call<?> call) {
        Worker worker = call.assigned();
        if (worker.group() != this) {
            throw new IllegalArgumentException(call + " belongs to " + worker.group() + ", not to " + name
                    + "; assign it to one of this pool's workers()");
        }
        return worker;
    }

    private Worker select(Call<?> call) {
        List<WorkerHandle> current = handles;
        if (current.isEmpty()) {
            throw new RejectedExecutionException(name + " has no workers now (every one has left), so it cannot run " + call);
        }
        WorkerHandle chosen = balancer.select(current, call);
        if (chosen instanceof Worker worker && worker.group() == this) {
            return worker;
        }
        throw new IllegalStateException("balancer " + balancer + " returned " + chosen + ", which is not a worker of "
                + name + "; a balancer must return one of the handles it is given");
    }

    @Override
    public int highWaterMark() {
        return highWaterMark;
    }

    @Override
    public Duration taskTimeout() {
        return taskTimeout;
    }

    @Override
    public boolean sharesAnyWork() {
        return spreadsLoad && handles.size() > 1;
    }

    @Override
    public SpinGate spinGate() {
        return spinGate;
    }

    @Override
    public BatchesUnderWay batches() {
        return batches;
    }

    @Override
    public boolean sharesWork(Invocation invocation) {
        return sharesAnyWork() && invocation instanceof Call<?> call && call.assigned() == null;
    }

    /**
     * Sets how often a {@link #close()} that is still waiting logs what holds it (10 seconds unless
     * set); for tests.
     *
     * @param interval the interval
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public void warnWhileClosingEvery(Duration interval) {
        if (!interval.isPositive()) {
            throw new IllegalArgumentException("the warning interval must be positive, was " + interval);
        }
        warningInterval = interval;
    }

    @Override
    public List<WorkerHandle> workers() {
        return handles;
    }

    @Override
    public Signal signal() {
        return shutdown.signal();
    }

    @Override
    public boolean isClosed() {
        return state != OPEN;
    }

    @Override
    public void close() {
        Thread caller = Thread.currentThread();
        for (Worker worker : workers) {
            if (worker.isCurrent()) {
                throw new IllegalStateException("close() was called on " + caller.getName() + ", a worker of " + name
                        + ", which would wait for itself; close the pool from outside, or call terminate()");
            }
        }
        Error fromSignal = null;
        if (STATE.compareAndSet(this, OPEN, CLOSING)) {
            // Drain before firing, so that a signal action that calls close() again finds the
            // workers already stopping, and one that throws cannot leave them running.
            for (Worker worker : snapshot()) {
                worker.drain(name + " was closed");
            }
            try {
                shutdown.abort(name + " is closing");
            } catch (Error e) {
                fromSignal = e;
            }
        } else if (state == CLOSED) {
            return;
        }
        try {
            if (!awaitWorkers()) {
                forceStop(name + " did not finish within its shutdown timeout of " + shutdownTimeout);
                if (awaitInterrupted()) {
                    caller.interrupt();
                }
            }
        } catch (InterruptedException e) {
            forceStop(name + " was closed by a thread that was interrupted while waiting");
            awaitInterrupted();
            caller.interrupt();
        }
        state = CLOSED;
        if (fromSignal != null) {
            throw fromSignal;
        }
    }

    /**
     * Waits for every worker to stop, up to the shutdown timeout, logging what holds the workers
     * still running at every warning interval; {@code false} on timeout.
     */
    private boolean awaitWorkers() throws InterruptedException {
        Worker[] stopping = snapshot();
        long start = System.nanoTime();
        // convert() saturates, so a timeout of centuries waits "forever" instead of overflowing.
        long limit = shutdownTimeout == null ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.convert(shutdownTimeout);
        long interval = TimeUnit.NANOSECONDS.convert(warningInterval);
        long warnAt = interval;
        for (int i = 0; i < stopping.length; i++) {
            while (!stopping[i].awaitStopped(Math.min(limit, warnAt) - (System.nanoTime() - start), TimeUnit.NANOSECONDS)) {
                if (System.nanoTime() - start >= limit) {
                    return false;
                }
                for (int j = i; j < stopping.length; j++) {
                    if (!stopping[j].isStopped()) {
                        LOG.log(System.Logger.Level.WARNING, name + ": close() has waited " + seconds(warnAt) + " for "
                                + stopping[j] + ", which is " + activity(stopping[j]));
                    }
                }
                warnAt += interval;
            }
        }
        return true;
    }

    /**
     * After interrupting: waits up to {@link #STOP_GRACE} for the workers to stop, then leaves any
     * whose task ignores the interrupt, with a warning. The wait is bounded, so it does not respond
     * to interrupts; returns whether one came.
     */
    private boolean awaitInterrupted() {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        for (Worker worker : snapshot()) {
            for (;;) {
                try {
                    if (!worker.awaitStopped(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                        Execution<?> running = worker.running();
                        LOG.log(System.Logger.Level.WARNING, name + ": close() stops waiting for " + worker + ", "
                                + (running != null ? "still running " + running.describe() : "still stopping") + " "
                                + seconds(STOP_GRACE.toNanos()) + " after interrupting it; that thread ends, closing its"
                                + " task-arg values, when the task returns");
                    }
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        return interrupted;
    }

    /** What a worker that close() waits for is doing. */
    private static String activity(Worker worker) {
        Execution<?> running = worker.running();
        if (running == null) {
            return "still stopping";
        }
        int queued = worker.activeCount() - 1;
        return "running " + (queued > 0 ? "(with " + queued + " more tasks queued) " : "") + running.describe();
    }

    /** Nanoseconds as seconds, as short as exact to the millisecond: "10 s", "0.2 s". */
    private static String seconds(long nanos) {
        return BigDecimal.valueOf(TimeUnit.NANOSECONDS.toMillis(nanos), 3).stripTrailingZeros().toPlainString() + " s";
    }

    @Override
    public void terminate() {
        if ((int) STATE.getAndSet(this, CLOSED) != CLOSED) {
            forceStop(name + " was terminated");
        }
    }

    private void forceStop(String reason) {
        for (Worker worker : snapshot()) {
            worker.forceStop(reason);
        }
        shutdown.abort(reason); // last: an action that throws cannot keep a worker running
    }

    @Override
    public String toString() {
        return name + "[" + workers.length + " workers, " + balancer + ", " + (state == OPEN ? "open" : "closed") + "]";
    }
}
