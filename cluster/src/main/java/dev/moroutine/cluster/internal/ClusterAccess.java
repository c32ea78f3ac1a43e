package dev.moroutine.cluster.internal;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.cluster.ClusterOptions;
import java.util.List;

/** What the public {@code Cluster} class reaches in this package. */
public final class ClusterAccess {

    private ClusterAccess() {}

    /**
     * Makes a cluster pool.
     *
     * @param hazelcast the instance
     * @param options the options
     * @return the pool
     */
    public static Pool start(HazelcastInstance hazelcast, ClusterOptions options) {
        return ClusterBackend.start(hazelcast, options);
    }

    /**
     * The worker among {@code workers} on the member that owns {@code key}'s partition.
     *
     * @param key the key
     * @param workers a cluster pool's workers
     * @return the worker, or null if its owner is not among them
     * @throws IllegalArgumentException if the workers are not a cluster pool's
     */
    public static WorkerHandle ownerOf(Object key, List<WorkerHandle> workers) {
        if (workers.isEmpty()) {
            return null;
        }
        if (!(workers.get(0) instanceof ClusterWorker first)) {
            throw new IllegalArgumentException(workers.get(0) + " is not a worker of a cluster pool (Cluster.workers);"
                    + " key affinity needs one");
        }
        return first.backend().ownerOf(key, workers);
    }

    /**
     * A cluster worker's member.
     *
     * @param worker the worker
     * @return its member
     */
    public static Member member(WorkerHandle worker) {
        if (worker instanceof ClusterWorker clusterWorker) {
            return clusterWorker.member();
        }
        throw new IllegalArgumentException(worker + " is not a worker of a cluster pool (Cluster.workers)");
    }

    /**
     * The member running the calling task.
     *
     * @return its instance
     */
    public static HazelcastInstance here() {
        HazelcastInstance here = MemberSide.here();
        if (here == null) {
            throw new IllegalStateException(Thread.currentThread().getName() + " is not running a task of a cluster pool");
        }
        return here;
    }
}
