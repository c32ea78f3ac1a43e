package dev.moroutine.internal.dispatch;

import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The wake-ups of thread workers put off until a batch of dispatches made by one thread ends.
 *
 * <p>A dispatch to a parked {@link ThreadWorker} unparks its thread at once. When one thread hands
 * several tasks to a worker in a row, and the two share a core (a busy machine, or a process pinned
 * to one CPU), the woken worker takes the core from the dispatcher, runs the one task queued so
 * far and parks again, and the two take turns task by task, two context switches each. A
 * dispatch made inside {@link #defer} queues its task as usual but leaves the worker asleep; at
 * {@link #wakeAll()} each worker that needs waking is woken once, and then finds all of its tasks
 * queued.
 *
 * <p>Deferring is safe because a dispatch has already published its task before it reads the
 * worker's parked flag: reading that flag later, in {@link #wakeAll()}, wakes a worker that parked
 * in between as surely. Until then the tasks may not start, so the code inside {@link #defer}
 * should dispatch and nothing else (no user code, which might wait for a task), and the owner must
 * call {@link #wakeAll()} in a {@code finally}, soon. Only thread workers defer; other workers are
 * woken as each dispatch is made.
 *
 * <p>Confined to one thread, which runs its batches one after another.
 */
public final class DeferredWakes {

    private static final ScopedValue<DeferredWakes> CURRENT = ScopedValue.newInstance();
    /**
     * Set once the first batch is made, so that until then a dispatch pays a plain read rather than
     * a scoped-value lookup. Plain: a thread that does not see it yet only wakes its worker at once.
     */
    private static boolean made;

    private ThreadWorker[] workers = new ThreadWorker[2];
    private int count;

    /** An empty batch. */
    public DeferredWakes() {
        made = true;
    }

    /**
     * Makes dispatches whose wake-ups wait for {@link #wakeAll()}.
     *
     * @param dispatches the dispatches to make, and nothing that waits for them
     * @param <T> what {@code dispatches} returns
     * @return what {@code dispatches} returns
     */
    public <T> T defer(Supplier<T> dispatches) {
        return ScopedValue.where(CURRENT, this).call(dispatches::get);
    }

    /** Whether the current thread is making deferred dispatches; if so, {@code worker} is woken at the batch's end. */
    static boolean deferred(ThreadWorker worker) {
        if (!made || !CURRENT.isBound()) {
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

    /**
     * Wakes the workers that the deferred dispatches left asleep (every one, even past one whose wake
     * fails: a dedicated worker's new thread that cannot start), and starts a new batch.
     */
    public void wakeAll() {
        Throwable first = null;
        int woken = count;
        count = 0;
        for (int i = 0; i < woken; i++) {
            ThreadWorker worker = workers[i];
            workers[i] = null;
            try {
                worker.wake();
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
