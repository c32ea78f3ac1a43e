package dev.moroutine.internal;

import dev.moroutine.AbortController;
import dev.moroutine.Balancer;
import dev.moroutine.Runner;
import dev.moroutine.Signal;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * The {@link Runner}: a fixed array of {@link ThreadWorker}s and a balancer. See {@link Runner}
 * for the shutdown state machine; {@code state} is OPEN, CLOSING or CLOSED, and each worker keeps
 * its own lifecycle, which is what actually stops dispatch.
 */
public final class WorkerPool implements Runner {

    private static final AtomicInteger POOLS = new AtomicInteger();

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
    private final ThreadWorker[] workers;
    private final List<WorkerHandle> handles;
    private final Balancer balancer;
    private final Duration shutdownTimeout;
    private final int highWaterMark;
    private final AbortController shutdown = new AbortController();
    private volatile int state = OPEN;

    /**
     * Makes and starts a pool.
     *
     * @param size the number of workers, at least 1
     * @param balancer the balancer
     * @param shutdownTimeout how long {@link #close()} waits before interrupting, or null for no limit
     * @param threadNamePrefix the thread name prefix, or null for {@code moroutine-pool-<n>}
     * @param highWaterMark stream items in flight before a producer blocks
     */
    public WorkerPool(int size, Balancer balancer, Duration shutdownTimeout, String threadNamePrefix, int highWaterMark) {
        this.name = threadNamePrefix != null ? threadNamePrefix : "moroutine-pool-" + POOLS.incrementAndGet();
        this.balancer = balancer;
        this.shutdownTimeout = shutdownTimeout;
        this.highWaterMark = highWaterMark;
        this.workers = new ThreadWorker[size];
        for (int i = 0; i < size; i++) {
            workers[i] = new ThreadWorker(name + "-worker-" + i, i, this);
        }
        this.handles = List.of(workers);
        for (ThreadWorker worker : workers) {
            worker.start();
        }
    }

    @Override
    public <R> R run(Task<R> task) {
        Call<R> call = Call.of(task);
        return call.runOn(place(call), highWaterMark);
    }

    @Override
    public <R> CompletableFuture<R> submit(Task<R> task) {
        Call<R> call = Call.of(task);
        return call.submitTo(place(call), highWaterMark);
    }

    @Override
    @SuppressWarnings("unchecked") // each result came from a Task<? extends R>
    public <R> List<R> runAll(List<? extends Task<? extends R>> tasks) {
        Objects.requireNonNull(tasks, "tasks");
        for (Task<? extends R> task : tasks) {
            Call.of(task); // refuse a bad list before anything runs
        }
        List<CompletableFuture<? extends R>> futures = new ArrayList<>(tasks.size());
        RuntimeException failure = null;
        try {
            for (Task<? extends R> task : tasks) {
                futures.add(submit(task));
            }
        } catch (RuntimeException refused) { // the pool closed part-way: still wait for what was sent
            failure = refused;
        }
        Object[] results = new Object[futures.size()];
        for (int i = 0; i < results.length; i++) {
            try {
                results[i] = futures.get(i) instanceof Execution<? extends R> execution
                        ? Waiting.await(execution)
                        : futures.get(i).join(); // a stream, already open
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return (List<R>) Collections.unmodifiableList(Arrays.asList(results));
    }

    /** The worker that runs {@code call}: its assignment, or the balancer's choice. */
    private ThreadWorker place(Call<?> call) {
        if (state != OPEN) {
            throw new RejectedExecutionException(name + " is closed, so it cannot run " + call
                    + "; submit tasks before close(), or make a new pool with workers(n)");
        }
        return route(call);
    }

    @Override
    public ExecutorService asExecutorService() {
        return new ExecutorView(this);
    }

    @Override
    public WorkerHandle workerFor(Task<?> task) {
        return route(Call.of(task));
    }

    private ThreadWorker route(Call<?> call) {
        return call.assigned() != null ? own(call) : select(call);
    }

    private ThreadWorker own(Call<?> call) {
        ThreadWorker worker = call.assigned();
        if (worker.pool() != this) {
            throw new IllegalArgumentException(call + " belongs to " + worker.pool().name + ", not to " + name
                    + "; assign it to one of this pool's workers()");
        }
        return worker;
    }

    private ThreadWorker select(Call<?> call) {
        WorkerHandle chosen = balancer.select(handles, call);
        if (chosen instanceof ThreadWorker worker && worker.pool() == this) {
            return worker;
        }
        throw new IllegalStateException("balancer " + balancer + " returned " + chosen + ", which is not a worker of "
                + name + "; a balancer must return one of the handles it is given");
    }

    /** Items in flight before a stream producer blocks, for streams run on this pool. */
    int highWaterMark() {
        return highWaterMark;
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
        for (ThreadWorker worker : workers) {
            if (worker.isOwnThread(caller)) {
                throw new IllegalStateException("close() was called on " + caller.getName() + ", a worker of " + name
                        + ", which would wait for itself; close the pool from outside, or call terminate()");
            }
        }
        Error fromSignal = null;
        if (STATE.compareAndSet(this, OPEN, CLOSING)) {
            // Drain before firing, so that a signal action that calls close() again finds the
            // workers already stopping, and one that throws cannot leave them running.
            for (ThreadWorker worker : workers) {
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
            }
        } catch (InterruptedException e) {
            forceStop(name + " was closed by a thread that was interrupted while waiting");
            caller.interrupt();
        }
        state = CLOSED;
        if (fromSignal != null) {
            throw fromSignal;
        }
    }

    /** Waits for every worker to stop, up to the shutdown timeout; {@code false} on timeout. */
    private boolean awaitWorkers() throws InterruptedException {
        if (shutdownTimeout == null) {
            for (ThreadWorker worker : workers) {
                worker.awaitStopped(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            }
            return true;
        }
        // convert() saturates, so a timeout of centuries waits "forever" instead of overflowing.
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(shutdownTimeout);
        for (ThreadWorker worker : workers) {
            if (!worker.awaitStopped(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void terminate() {
        if ((int) STATE.getAndSet(this, CLOSED) != CLOSED) {
            forceStop(name + " was terminated");
        }
    }

    private void forceStop(String reason) {
        for (ThreadWorker worker : workers) {
            worker.forceStop(reason);
        }
        shutdown.abort(reason); // last: an action that throws cannot keep a worker running
    }

    @Override
    public String toString() {
        return name + "[" + workers.length + " workers, " + balancer + ", " + (state == OPEN ? "open" : "closed") + "]";
    }
}
