package dev.moroutine.internal.call;

import dev.moroutine.Balancer;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.PaddedCounter;
import java.util.List;

/**
 * The built-in balancers. Both are lock-free and may be shared by pools. Their counters sit on cache
 * lines of their own: every submit bumps one, and a balancer is made just before its pool, whose
 * fields the workers read for every task.
 */
public final class Balancers {

    private Balancers() {}

    /**
     * A new round-robin balancer.
     *
     * @return the balancer
     */
    public static Balancer roundRobin() {
        return new RoundRobin();
    }

    /**
     * A new least-busy balancer.
     *
     * @return the balancer
     */
    public static Balancer leastBusy() {
        return new LeastBusy();
    }

    /**
     * Whether {@code balancer} only spreads load, so that an idle worker may run a task it placed
     * elsewhere: the built-in ones do; a user's balancer may place deliberately (by key, say).
     *
     * @param balancer a pool's balancer
     * @return whether it is one of the built-in balancers
     */
    static boolean spreadsLoad(Balancer balancer) {
        return balancer instanceof RoundRobin || balancer instanceof LeastBusy;
    }

    private static final class RoundRobin implements Balancer {
        private final PaddedCounter next = new PaddedCounter();

        @Override
        public WorkerHandle select(List<WorkerHandle> workers, Task<?> task) {
            int size = workers.size();
            // Turns counted without a locked instruction, which drained the submitting thread's stores at every
            // task: threads submitting at once may now and then take the same turn, which spreads as well.
            return workers.get(size == 1 ? 0 : Math.floorMod(next.bump(), size));
        }

        @Override
        public String toString() {
            return "roundRobin()";
        }
    }

    private static final class LeastBusy implements Balancer {
        /** Where each scan starts; rotating it breaks ties fairly instead of always favouring worker 0. */
        private final PaddedCounter offset = new PaddedCounter();

        @Override
        public WorkerHandle select(List<WorkerHandle> workers, Task<?> task) {
            int size = workers.size();
            int start = size == 1 ? 0 : Math.floorMod(offset.bump(), size);
            WorkerHandle best = null;
            int fewest = Integer.MAX_VALUE;
            for (int i = 0; i < size; i++) {
                WorkerHandle candidate = workers.get((start + i) % size);
                int active = candidate.activeCount();
                if (active < fewest) {
                    best = candidate;
                    fewest = active;
                    if (active == 0) {
                        break;
                    }
                }
            }
            return best;
        }

        @Override
        public String toString() {
            return "leastBusy()";
        }
    }
}
