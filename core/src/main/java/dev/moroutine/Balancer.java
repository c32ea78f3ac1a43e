package dev.moroutine;

import java.util.List;

/**
 * Chooses the worker of a pool that runs a task. Built in: {@link Moroutine#roundRobin()} (the
 * default) and {@link Moroutine#leastBusy()}.
 *
 * <p>A balancer is called on the thread that submits the task, possibly by many threads at once,
 * and may be shared by several pools, so implementations must be thread-safe. It should be quick
 * and must not block: it sits on the dispatch path of every task. Tasks that were
 * {@linkplain Moroutine#assign assigned} to a worker do not reach the balancer.
 *
 * <p>A task placed by one of the built-in balancers may be run by an idle worker of the pool
 * instead, when it waits at a worker that finishes nothing meanwhile (see {@link Moroutine#roundRobin()});
 * a task placed by any other balancer runs where that balancer put it.
 */
@FunctionalInterface
public interface Balancer {

    /**
     * Picks the worker for a task.
     *
     * @param workers the pool's workers at this moment, in index order; never empty, never modified. In
     *     a pool whose workers come and go (a cluster) each call gets the current snapshot, so a
     *     balancer that keeps state between calls must not assume the same list, size or positions
     * @param task the task to place; {@link Moroutine#isTask} and a moroutine's {@code args(task)}
     *     give typed access to its arguments
     * @return one of {@code workers}
     */
    WorkerHandle select(List<WorkerHandle> workers, Task<?> task);
}
