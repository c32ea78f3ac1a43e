package dev.moroutine.internal.dispatch;

import java.util.Arrays;

/**
 * The wake-ups of thread workers put off to the end of a batch of dispatches made by one thread.
 *
 * <p>A dispatch to a parked {@link ThreadWorker} unparks its thread at once. When one thread hands
 * several tasks to a worker in a row, and the two share a core (a busy machine, or a process pinned
 * to one CPU), the woken worker takes the core from the dispatcher, runs the one task queued so
 * far and parks again, and the two take turns task by task, two context switches each. Inside
 * {@link #run}, dispatches by the calling thread queue their tasks as usual but leave the workers
 * asleep; each worker that needs waking is woken once, when the batch ends (normally or not), and
 * then finds all of its tasks queued.
 *
 * <p>Deferring is safe because a dispatch has already published its task before it reads the
 * worker's parked flag: reading that flag later, at the end of the batch, wakes a worker that
 * parked in between as surely. A batch must not wait for the tasks it dispatches: they may not
 * start before it ends. Only thread workers defer; other workers are woken as each dispatch is made.
 *
 * <p>Each instance is confined to the thread running the batch.
 */
public final class DeferredWakes {

    private static final ScopedValue<DeferredWakes> CURRENT = ScopedValue.newInstance();

    private ThreadWorker[] workers = new ThreadWorker[2];
    private int count;

    private DeferredWakes() {}

    /**
     * Runs {@code batch}, then wakes the workers that its dispatches left asleep.
     *
     * @param batch dispatches that need not start before the batch ends
     */
    public static void run(Runnable batch) {
        DeferredWakes wakes = new DeferredWakes();
        try {
            ScopedValue.where(CURRENT, wakes).run(batch);
        } finally {
            wakes.wakeAll();
        }
    }

    /** Whether the current thread is in a batch; if so, {@code worker} is woken when it ends. */
    static boolean defer(ThreadWorker worker) {
        if (!CURRENT.isBound()) {
            return false;
        }
        CURRENT.get().add(worker);
        return true;
    }

    private void add(ThreadWorker worker) {
        for (int i = 0; i < count; i++) {
            if (workers[i] == worker) {
                return;
            }
        }
        if (count == workers.length) {
            workers = Arrays.copyOf(workers, 2 * count);
        }
        workers[count++] = worker;
    }

    /** Wakes every worker, even past one whose wake fails (a dedicated worker's new thread that cannot start). */
    private void wakeAll() {
        Throwable first = null;
        for (int i = 0; i < count; i++) {
            try {
                workers[i].wake();
            } catch (RuntimeException | Error e) {
                first = first == null ? e : first;
            }
        }
        if (first instanceof Error e) {
            throw e;
        }
        if (first instanceof RuntimeException e) {
            throw e;
        }
    }
}
