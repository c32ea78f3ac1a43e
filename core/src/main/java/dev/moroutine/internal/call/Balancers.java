package dev.moroutine.internal.call;

import dev.moroutine.Balancer;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The built-in balancers. Both are lock-free and may be shared by pools. */
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

    private static final class RoundRobin implements Balancer {
        private final AtomicInteger next = new AtomicInteger();

        @Override
        public WorkerHandle select(List<WorkerHandle> workers, Task<?> task) {
            return workers.get(Math.floorMod(next.getAndIncrement(), workers.size()));
        }

        @Override
        public String toString() {
            return "roundRobin()";
        }
    }

    private static final class LeastBusy implements Balancer {
        /** Where each scan starts; rotating it breaks ties fairly instead of always favouring worker 0. */
        private final AtomicInteger offset = new AtomicInteger();

        @Override
        public WorkerHandle select(List<WorkerHandle> workers, Task<?> task) {
            int size = workers.size();
            int start = Math.floorMod(offset.getAndIncrement(), size);
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
