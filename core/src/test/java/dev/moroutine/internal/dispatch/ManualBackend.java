package dev.moroutine.internal.dispatch;

import dev.moroutine.internal.call.WorkerPool;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The deterministic test backend: its workers ({@link ManualWorker}) only queue what is dispatched
 * to them, and a test runs the executions, on its own thread, when it chooses. Driven from one
 * thread, it runs them in the order they were dispatched (across workers, too), so what the thread
 * backend leaves to a race happens here in a sequence the test writes down.
 *
 * <p>Blocking calls ({@code pool.run}, {@code runAll}) wait for runs that only the test can start:
 * make them on another thread and drive the backend with {@link #runUntil} meanwhile. A task that
 * waits for another worker's task (a consumer reading a stream task's items) can let that worker run
 * there and then with {@link #runUntilIdle()}: the runs nest on the thread, keeping each worker's
 * one-at-a-time order.
 *
 * <p>{@code nextChange} is completed, and replaced, on every dispatch, every end of a run and every
 * stop; a driver takes it before it checks its condition and then waits on it with a deadline, so it
 * misses no change and never polls.
 */
public final class ManualBackend implements WorkerPool.Backend {

    private final List<ManualWorker> workers = new CopyOnWriteArrayList<>();
    private final AtomicLong dispatches = new AtomicLong();
    private final AtomicReference<CompletableFuture<Void>> nextChange = new AtomicReference<>(new CompletableFuture<>());

    /** Makes a backend with no workers yet; each pool made with it adds its own. */
    public ManualBackend() {}

    @Override
    public Worker start(String name, int index, WorkerGroup pool) {
        ManualWorker worker = new ManualWorker(name, index, pool, this);
        workers.add(worker);
        return worker;
    }

    /**
     * Every worker made so far, in the order they were made.
     *
     * @return the workers
     */
    public List<ManualWorker> workers() {
        return List.copyOf(workers);
    }

    /**
     * Runs the execution dispatched first among those queued on workers that are not running one now.
     *
     * @return whether one ran
     */
    public boolean runNext() {
        ManualWorker oldest = null;
        long first = Long.MAX_VALUE;
        for (ManualWorker worker : workers) {
            long next = worker.nextSequence();
            if (next < first) {
                first = next;
                oldest = worker;
            }
        }
        return oldest != null && oldest.runNext();
    }

    /**
     * Runs executions, in dispatch order, until none is left that can run now.
     *
     * @return how many ran
     */
    public int runUntilIdle() {
        int ran = 0;
        while (runNext()) {
            ran++;
        }
        return ran;
    }

    /**
     * Runs executions as they come, waiting for other threads to dispatch them, until {@code done}
     * completes.
     *
     * @param done what to wait for (typically a blocking call made on another thread)
     * @param timeout how long it may take
     * @throws InterruptedException if the caller is interrupted
     * @throws TimeoutException if {@code done} is still not complete after {@code timeout}
     */
    public void runUntil(CompletableFuture<?> done, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        done.whenComplete((result, failure) -> changed());
        for (;;) {
            CompletableFuture<?> change = nextChange();
            if (done.isDone()) {
                return;
            }
            if (runNext()) {
                continue;
            }
            if (!awaitChange(change, deadline)) {
                throw new TimeoutException(done + " did not complete within " + timeout + "; queued: " + workers.stream()
                        .map(worker -> worker + ": " + worker.queued()).collect(Collectors.joining(", ")));
            }
        }
    }

    /** The next number in dispatch order. */
    long nextSequence() {
        return dispatches.getAndIncrement();
    }

    /** Something a driver may wait for happened: a dispatch, the end of a run, a stop. Never blocks. */
    void changed() {
        nextChange.getAndSet(new CompletableFuture<>()).complete(null);
    }

    /** What completes at the next change: take it before checking a condition, then {@link #awaitChange} on it. */
    CompletableFuture<?> nextChange() {
        return nextChange.get();
    }

    /**
     * Waits until {@code change} completes, or the deadline passes.
     *
     * @return {@code false} if the deadline passed first
     */
    boolean awaitChange(CompletableFuture<?> change, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        try {
            change.get(left, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new AssertionError("a change is never completed exceptionally", e);
        }
    }
}
