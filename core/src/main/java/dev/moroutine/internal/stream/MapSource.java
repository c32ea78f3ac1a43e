package dev.moroutine.internal.stream;

import dev.moroutine.Pool;
import dev.moroutine.Signal;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The source behind {@code map(pool, tasks, concurrency)}: the consuming thread keeps up to
 * {@code concurrency} tasks submitted, pulling the next task only when a slot frees, and takes
 * results from a queue that completions feed, so they come out in completion order.
 *
 * <p>It stops in three ways. The signal's action cancels what is in flight and puts
 * {@link #ABORTED} in the queue to wake a waiting consumer; from then on (checked before each
 * result, and before a task's failure is reported, which the abort may have caused) the stream
 * simply ends. An interrupt of the waiting consumer cancels what is in flight and throws
 * {@link CancellationException}, keeping the interrupt status. Closing the stream cancels what is
 * in flight, and a consumer waiting then (closed from another thread) sees the stream end. A close
 * from another thread while the consumer submits tasks may miss a task it is adding: the consumer
 * adds each task to {@code inFlight} before it reads {@code cancelled}, and the close sets
 * {@code cancelled} before it reads {@code inFlight}, so whatever the close misses, the consumer
 * cancels itself (and it submits nothing once it sees the close).
 * Cancelling skips tasks that have not started; running ones finish on their workers.
 *
 * <p>A task's failure also cancels what is in flight; it is thrown by {@code next()} then and at
 * every later call, until the consumer cancels, as {@link ItemSource} requires.
 */
public final class MapSource implements ItemSource {

    /** Put in the completion queue when the signal fires, to wake a waiting consumer. */
    private static final CompletableFuture<Object> ABORTED = new CompletableFuture<>();

    private final Pool pool;
    private final Iterator<? extends Task<?>> tasks;
    private final int concurrency;
    private final Signal signal;
    private final LinkedBlockingQueue<CompletableFuture<?>> completed = new LinkedBlockingQueue<>();
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private final Signal.Registration registration;
    private final String description;
    private volatile boolean cancelled;
    /** What the last next() threw for a task's failure, thrown again by every later one; the consumer's only. */
    private RuntimeException failed;
    /** Whether next() has returned END because every task was done: the source is not asked again. The consumer's only. */
    private boolean ended;

    MapSource(Pool pool, Iterator<? extends Task<?>> tasks, int concurrency, Signal signal) {
        this.pool = pool;
        this.description = "map over " + pool;
        this.tasks = tasks;
        this.concurrency = concurrency;
        this.signal = signal;
        this.registration = signal == null ? null : signal.onAbort(() -> {
            cancelInFlight();
            completed.add(ABORTED);
        });
    }

    /**
     * The results of running {@code tasks} on {@code pool}, {@code concurrency} at a time.
     *
     * @param pool the pool
     * @param tasks the tasks
     * @param concurrency the most in flight
     * @param signal stops the mapping, or null
     * @param <R> the result type
     * @return the results, in completion order
     */
    public static <R> LiveStream<R> stream(Pool pool, Iterator<? extends Task<? extends R>> tasks, int concurrency,
            Signal signal) {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(tasks, "tasks");
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1 (tasks in flight at once), was " + concurrency);
        }
        MapSource source = new MapSource(pool, tasks, concurrency, signal);
        return new LiveStreamImpl<>(source, source.description);
    }

    @Override
    public Object next() {
        if (ended || cancelled || aborted()) {
            return END;
        }
        if (failed != null) {
            throw failed;
        }
        while (!cancelled && inFlight.size() < concurrency && tasks.hasNext()) {
            Task<?> task = Objects.requireNonNull(tasks.next(), "a task of map's source is null");
            if (cancelled) {
                break; // closed while the source made the task: it is not submitted
            }
            CompletableFuture<?> future = pool.submit(task);
            inFlight.add(future);
            future.whenComplete((result, failure) -> completed.add(future));
        }
        if (cancelled) { // closed from another thread meanwhile: its cancel may have missed what was just added
            stopInFlight();
            return END;
        }
        if (inFlight.isEmpty()) {
            ended = true; // an iterator that has more later (over a queue, say) must not restart the stream
            close();
            return END;
        }
        CompletableFuture<?> done = take();
        if (cancelled || aborted()) { // closed (from another thread, say) while waiting: the stream just ends
            return END;
        }
        inFlight.remove(done);
        try {
            return done.join();
        } catch (CompletionException failure) {
            stopInFlight();
            if (aborted()) {
                return END;
            }
            Throwable cause = failure.getCause() != null ? failure.getCause() : failure; // as Waiting.await
            throw failed = new TaskFailedException("a task of map failed: " + cause, cause);
        } catch (CancellationException stopped) {
            stopInFlight();
            if (aborted()) {
                return END;
            }
            Throwable why = stopped.getCause() instanceof CancellationException stored ? stored : stopped;
            CancellationException here = new CancellationException("a task of map was cancelled: " + why.getMessage());
            here.initCause(why);
            throw failed = here;
        }
    }

    private CompletableFuture<?> take() {
        CompletableFuture<?> done = completed.poll();
        if (done != null) {
            return done;
        }
        try {
            return completed.take();
        } catch (InterruptedException e) { // a stopping worker, or a caller giving up: stop waiting, as a pipe does
            cancel();
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for a result of " + description);
        }
    }

    /** Whether the signal has fired; then the stream ends, with what is in flight cancelled. */
    private boolean aborted() {
        if (signal != null && signal.aborted()) {
            cancel();
            return true;
        }
        return false;
    }

    @Override
    public void cancel() {
        cancelled = true;
        stopInFlight();
    }

    /** Cancels what is in flight and lets go of the signal; after a failure, the stream is not ended but failed. */
    private void stopInFlight() {
        cancelInFlight();
        close();
    }

    private void cancelInFlight() {
        for (CompletableFuture<?> future : List.copyOf(inFlight)) {
            future.cancel(false); // skips tasks that have not started
        }
    }

    private void close() {
        if (registration != null) {
            registration.close();
        }
    }
}
