package dev.moroutine;

/**
 * One worker of a pool, as a {@link Balancer} and {@link Moroutine#assign} see it. A handle stands
 * for the worker's slot: it stays valid when a dead worker thread is replaced.
 *
 * <p>Handles are thread-safe; their readings are snapshots that may be stale by the time they are used.
 */
public sealed interface WorkerHandle permits dev.moroutine.internal.dispatch.Worker {

    /**
     * The number of tasks dispatched to this worker that have not finished yet (queued plus running).
     *
     * @return the in-flight task count, never negative
     */
    int activeCount();

    /**
     * The worker's name. A pool's thread worker is named {@code <prefix>-worker-<index>}, and so is
     * the thread that runs its tasks (a thread that replaces a dead one adds {@code #<n>}).
     *
     * @return the name
     */
    String name();

    /**
     * This worker's number in its pool: given in the order the pool's workers were made, from 0, and
     * never reused. In a pool whose workers never change (threads, worker JVMs) it is also the
     * worker's position in {@link Pool#workers()}; in one whose workers come and go (the members of a
     * cluster), {@code workers()} holds the current workers in index order, with gaps.
     *
     * @return the index, from 0
     */
    int index();
}
