package dev.moroutine.internal.dispatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How many {@code runAll} batches of one pool are under way: sent, and not all of their results
 * in. The pool's thread workers keep a batch's order (see {@link ThreadWorker}, "Batches in order")
 * only while there is one; otherwise a worker takes its queue's head at once, without looking at it
 * first. That look, at every task, cost tasks submitted one by one about 13 % of their rate (64 in
 * flight); this count is written at a batch's start and end only, so between batches the workers
 * read a line that stays in their caches.
 *
 * <p>A worker that reads no batch while one starts takes that batch's first executions directly:
 * they run as an execution not yet exposed to the batch's cursor does, claimed by the worker first,
 * so each still runs exactly once; only the order at the batch's very start is left to that race.
 *
 * <p>Thread-safe: started and ended by any thread that calls {@code runAll}; read by any worker.
 */
public final class BatchesUnderWay {

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(BatchesUnderWay.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int count;

    /** None under way. */
    public BatchesUnderWay() {
        // a pool makes one for its workers
    }

    /** A batch starts: before its first execution is sent. */
    public void started() {
        COUNT.getAndAdd(this, 1);
    }

    /** A batch has ended: all of its results are in, or it failed (after {@link #started}, exactly once). */
    public void ended() {
        COUNT.getAndAdd(this, -1);
    }

    /**
     * Whether a batch is under way now.
     *
     * @return whether one has started and not ended
     */
    public boolean any() {
        return count != 0;
    }
}
