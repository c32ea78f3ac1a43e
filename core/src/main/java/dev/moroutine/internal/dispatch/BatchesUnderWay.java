package dev.moroutine.internal.dispatch;

import java.util.Arrays;

/**
 * The {@code runAll} batches of one pool that are under way: sent, and not all of their results
 * in. The pool's thread workers keep a batch's order (see {@link ThreadWorker}, "Batches in order")
 * only while there is one; otherwise a worker takes its queue's head at once, without looking at it
 * first. That look, at every task, cost tasks submitted one by one about 13 % of their rate (64 in
 * flight); {@link #any} reads a field written at a batch's start and end only, so between batches
 * the workers read a line that stays in their caches. An idle worker also looks at every batch under
 * way ({@link #all}) for its oldest execution nobody has taken, so that a free thread finds one
 * left behind an older execution of its batch, even one that waits for it, on a busy worker.
 *
 * <p>A worker that reads no batch while one starts takes that batch's first executions directly:
 * they run as an execution not yet exposed to the batch's cursor does, claimed by the worker first,
 * so each still runs exactly once; only the order at the batch's very start is left to that race.
 *
 * <p>Thread-safe: started and ended by any thread that calls {@code runAll}, under this object's
 * lock (a new array each time); read by any worker without it.
 */
public final class BatchesUnderWay {

    private static final Batch[] NONE = new Batch[0];

    /** The batches under way, oldest first; replaced, never changed in place. */
    private volatile Batch[] underWay = NONE;

    /** None under way. */
    public BatchesUnderWay() {
        // a pool makes one for its workers
    }

    /**
     * A batch starts: before its first execution is sent.
     *
     * @param batch the batch
     */
    public synchronized void started(Batch batch) {
        Batch[] now = Arrays.copyOf(underWay, underWay.length + 1);
        now[now.length - 1] = batch;
        underWay = now;
    }

    /**
     * A batch has ended: all of its results are in, or it failed (after {@link #started}, exactly once).
     *
     * @param batch the batch
     */
    public synchronized void ended(Batch batch) {
        Batch[] was = underWay;
        if (was.length == 1) { // the usual case, without allocating: an end that cannot fail for want of memory
            underWay = NONE;
            return;
        }
        Batch[] now = new Batch[was.length - 1];
        for (int i = 0, j = 0; i < was.length; i++) {
            if (was[i] != batch) {
                now[j++] = was[i];
            }
        }
        underWay = now;
    }

    /**
     * Whether a batch is under way now.
     *
     * @return whether one has started and not ended
     */
    public boolean any() {
        return underWay.length != 0;
    }

    /** The batches under way now, oldest first; the caller must not change the array. */
    Batch[] all() {
        return underWay;
    }
}
