package dev.moroutine.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Balancer;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.cluster.internal.ClusterAccess;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Pools whose workers are the members of a Hazelcast cluster: the same {@code static final}
 * moroutines, run, submitted, mapped, balanced and {@linkplain dev.moroutine.Moroutine#assign
 * assigned} as on a pool of threads, each worker a member of the cluster, this one included.
 *
 * <pre>{@code
 * try (Pool pool = Cluster.workers(hazelcast)) {
 *     int squared = pool.run(Jobs.square.call(7));
 * }
 * }</pre>
 *
 * <p>A task is sent as its moroutine's id ({@code class#field}) and its arguments, encoded as for
 * isolated workers (Apache Fory, registered classes only: {@link ClusterOptions#register}), inside
 * a Hazelcast {@code IExecutorService} callable; the member finds the moroutine by its id, so every
 * member needs the application's classes on its class path. On each member the pool has one worker
 * thread: it runs the pool's tasks there one at a time, resolves task-args and caches them (once per
 * member), and closes them when the pool closes, when this member (the pool's owner) leaves, or when
 * that member shuts down.
 *
 * <p>Members come and go: {@link Pool#workers()} is a snapshot. A member that joins becomes a worker
 * with the next index once it has opened the pool; one that leaves is taken out before its tasks are
 * settled, so balancers never choose it again. Each task it had settles exactly once: it runs again
 * on another member if its moroutine is {@linkplain ClusterOptions#idempotent idempotent}, else it
 * fails with a {@link dev.moroutine.WorkerDiedException} naming the member. Closing the pool never
 * shuts down the Hazelcast instance; an instance that shuts down before its pool is closed fails every
 * task and stream of the pool still in flight at once, with an {@link IllegalStateException} that says
 * so, and the pool refuses new tasks.
 *
 * <p>Streaming moroutines stream from the member with backpressure. Shared memory
 * ({@link dev.moroutine.shared.SharedValue}), signals, and stream or channel arguments do not cross
 * machines: such a task is refused when it is run or submitted, with a message that says what to use.
 */
public final class Cluster {

    private Cluster() {}

    /**
     * Makes a pool whose workers are the members of {@code hazelcast}'s cluster, with the default options.
     *
     * @param hazelcast a member (or client) of the cluster; the pool never shuts it down
     * @return the pool, open on every member; close it with try-with-resources
     * @throws IllegalStateException if no member could open it
     * @throws NullPointerException if {@code hazelcast} is null
     */
    public static Pool workers(HazelcastInstance hazelcast) {
        return workers(hazelcast, ClusterOptions.defaults());
    }

    /**
     * Makes a pool whose workers are the members of {@code hazelcast}'s cluster.
     *
     * @param hazelcast a member (or client) of the cluster; the pool never shuts it down
     * @param options the pool's options
     * @return the pool, open on every member; close it with try-with-resources
     * @throws IllegalStateException if no member could open it (a member that lacks a registered
     *     class says so)
     * @throws NullPointerException if an argument is null
     */
    public static Pool workers(HazelcastInstance hazelcast, ClusterOptions options) {
        return ClusterAccess.start(Objects.requireNonNull(hazelcast, "hazelcast"), Objects.requireNonNull(options, "options"));
    }

    /**
     * A balancer that sends each task to the member that owns its key's partition (as Hazelcast's
     * {@code executeOnKeyOwner} does), so that a task runs where its data lives: say the member
     * holding an {@code IMap} entry of that key. While a partition migrates, or if its owner is not
     * (yet) a worker of the pool, the task goes to a worker chosen by the key's hash.
     *
     * @param key the task's key: a value Hazelcast can serialize, the same as the map's key; null
     *     for a task without one, which goes round robin
     * @return the balancer, for {@code PoolOptions.withBalancer} on a cluster pool
     * @throws NullPointerException if {@code key} is null
     */
    public static Balancer byKey(Function<? super Task<?>, ?> key) {
        Objects.requireNonNull(key, "key");
        AtomicInteger next = new AtomicInteger();
        return new Balancer() {
            @Override
            public WorkerHandle select(List<WorkerHandle> workers, Task<?> task) {
                Object of = key.apply(task);
                if (of == null) { // a task without a key: round robin
                    return workers.get(Math.floorMod(next.getAndIncrement(), workers.size()));
                }
                WorkerHandle owner = ClusterAccess.ownerOf(of, workers);
                return owner != null ? owner : workers.get(Math.floorMod(of.hashCode(), workers.size()));
            }

            @Override
            public String toString() {
                return "Cluster.byKey(" + key + ")";
            }
        };
    }

    /**
     * The worker of {@code pool} on the member that owns {@code key}'s partition now, for
     * {@link dev.moroutine.Moroutine#assign}.
     *
     * @param pool a cluster pool
     * @param key a key
     * @return the worker
     * @throws IllegalArgumentException if {@code pool} is not a cluster pool
     * @throws IllegalStateException if the owner is not a worker of the pool (it is joining, or migrating)
     */
    public static WorkerHandle ownerOf(Pool pool, Object key) {
        WorkerHandle owner = ClusterAccess.ownerOf(Objects.requireNonNull(key, "key"), pool.workers());
        if (owner == null) {
            throw new IllegalStateException("the owner of key " + key + "'s partition is not a worker of " + pool + " now");
        }
        return owner;
    }

    /**
     * The member a cluster worker sends its tasks to.
     *
     * @param worker a worker of a cluster pool
     * @return its member
     * @throws IllegalArgumentException if it is not one
     */
    public static Member member(WorkerHandle worker) {
        return ClusterAccess.member(worker);
    }

    /**
     * The Hazelcast instance of the member whose worker runs the calling task, for a task that reads
     * or writes the cluster's data where it runs (say an {@code IMap} entry it owns).
     *
     * @return the member's instance
     * @throws IllegalStateException if called outside a task of a cluster pool
     */
    public static HazelcastInstance here() {
        return ClusterAccess.here();
    }
}
