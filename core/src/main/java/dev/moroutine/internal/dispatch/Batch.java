package dev.moroutine.internal.dispatch;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executions of one {@code runAll}, which the pool's thread workers take in the order they
 * were sent, whichever worker each was sent to: a worker whose queue's head is one of the batch
 * runs the batch's oldest execution that nobody has taken yet instead, and leaves the head queued
 * (see {@link ThreadWorker}), so the batch runs as if its workers pulled it from one queue, and a
 * worker that is free early does not wait behind a long task queued at its sibling.
 *
 * <p>Each execution is {@linkplain #add added} before it is sent and {@linkplain #sent exposed}
 * once its worker has admitted it: the cursor never hands out an execution that no worker
 * accepted, and whoever reads the volatile count sees the execution and its worker. The cursor
 * only hands executions out; a worker still {@linkplain Execution#claim claims} one before it runs
 * it, against its owner and any other taker, so each runs exactly once.
 *
 * <p>An execution handed out leaves the batch, and {@link #ended} lets go of the rest: a worker
 * that keeps the batch (to take its next) keeps no results reachable.
 *
 * <p>Added, exposed and ended by the one thread that sends the batch; read by any worker of its pool.
 */
public final class Batch {

    private final Execution<?>[] executions;
    /** How many executions, from the first, have been admitted by their workers. */
    private volatile int sent;
    /** The next execution to hand out. */
    private final AtomicInteger next = new AtomicInteger();

    /**
     * A batch of at most {@code size} executions.
     *
     * @param size how many it may hold
     */
    public Batch(int size) {
        executions = new Execution<?>[size];
    }

    /**
     * Adds the next execution, before it is sent.
     *
     * @param index its position: the count added so far
     * @param execution the execution
     */
    public void add(int index, Execution<?> execution) {
        executions[index] = execution;
        execution.joinBatch(this, index);
    }

    /**
     * The first {@code count} executions have been admitted by their workers: they may be handed out.
     *
     * @param count how many, from the first
     */
    public void sent(int count) {
        sent = count;
    }

    /**
     * The batch's caller has every result: it lets go of the executions not handed out (run where
     * they were placed, or taken by an idle sibling), which a worker's last batch or an execution's
     * reference to its batch would otherwise keep reachable.
     */
    public void ended() {
        Arrays.fill(executions, null);
    }

    /** Whether the cursor may hand out the execution at {@code index}: it was admitted. */
    boolean exposes(int index) {
        return index < sent;
    }

    /** The next execution sent that the cursor has not handed out yet; null once it has handed out all sent. */
    Execution<?> next() {
        for (;;) {
            int index = next.get();
            if (index >= sent) {
                return null;
            }
            if (next.compareAndSet(index, index + 1)) {
                Execution<?> execution = executions[index];
                executions[index] = null; // handed out: the batch no longer keeps it (or its result) reachable
                if (execution != null) { // null once the batch has ended
                    return execution;
                }
            }
        }
    }
}
