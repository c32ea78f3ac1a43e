package dev.moroutine.cluster;

import dev.moroutine.Mo;
import dev.moroutine.PoolOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of a pool of cluster workers made by {@link Cluster#workers(com.hazelcast.core.HazelcastInstance, ClusterOptions)}:
 * its {@link PoolOptions} (balancer, shutdown and task timeouts, names, stream high-water mark), the
 * classes that may cross to the members, and the moroutines that may run again elsewhere when their
 * member leaves. Immutable: each method returns a copy.
 *
 * <pre>{@code
 * var options = ClusterOptions.defaults()
 *         .withPoolOptions(PoolOptions.defaults().withBalancer(Moroutine.leastBusy()))
 *         .register(Order.class)
 *         .idempotent(Jobs.price);
 * }</pre>
 */
public final class ClusterOptions {

    private final PoolOptions poolOptions;
    private final List<Class<?>> types;
    private final Set<Mo> idempotent;
    private final String executorName;

    private ClusterOptions(PoolOptions poolOptions, List<Class<?>> types, Set<Mo> idempotent, String executorName) {
        this.poolOptions = poolOptions;
        this.types = types;
        this.idempotent = idempotent;
        this.executorName = executorName;
    }

    /**
     * The defaults: {@link PoolOptions#defaults()}, no registered classes, no idempotent moroutines,
     * and Hazelcast's executor named {@code "moroutine"}.
     *
     * @return default options
     */
    public static ClusterOptions defaults() {
        return new ClusterOptions(PoolOptions.defaults(), List.of(), Set.of(), "moroutine");
    }

    /**
     * Uses these pool options: balancer, shutdown timeout, worker names, stream high-water mark and task timeout.
     *
     * @param options the pool options
     * @return a copy with them
     * @throws NullPointerException if {@code options} is null
     */
    public ClusterOptions withPoolOptions(PoolOptions options) {
        return new ClusterOptions(Objects.requireNonNull(options, "options"), types, idempotent, executorName);
    }

    /**
     * Lets instances of these classes cross to and from the members, as arguments, results, stream
     * items or parts of them; as {@code IsolatedOptions.register} does for worker JVMs (the same
     * encoding, Apache Fory with class registration required): strings, boxed primitives, arrays and
     * the JDK's collections and time types cross without registering. Every member must have the
     * classes on its class path. In a named module, open their package to {@code org.apache.fory.core}.
     *
     * @param classes the classes, added after those registered before
     * @return a copy with them
     * @throws IllegalArgumentException if one is a primitive type, or registered already
     * @throws NullPointerException if one is null
     */
    public ClusterOptions register(Class<?>... classes) {
        List<Class<?>> copy = new ArrayList<>(types);
        for (Class<?> type : classes) {
            if (Objects.requireNonNull(type, "a class to register is null").isPrimitive()) {
                throw new IllegalArgumentException(type + " is a primitive type, which crosses without registering");
            }
            if (copy.contains(type)) {
                throw new IllegalArgumentException(type.getName() + " is registered already");
            }
            copy.add(type);
        }
        return new ClusterOptions(poolOptions, List.copyOf(copy), idempotent, executorName);
    }

    /**
     * Marks moroutines as idempotent: when the member running one of their tasks leaves the cluster
     * (shut down, or dead) before it answered, the task runs again on another member instead of
     * failing. Running twice must then be harmless, since the member may have run it before it
     * left. Streaming moroutines are never run again (their items may have been taken).
     *
     * @param moroutines the moroutines, added to those marked before
     * @return a copy with them
     * @throws NullPointerException if one is null
     */
    public ClusterOptions idempotent(Mo... moroutines) {
        Set<Mo> copy = Collections.newSetFromMap(new IdentityHashMap<>());
        copy.addAll(idempotent);
        for (Mo moroutine : moroutines) {
            copy.add(Objects.requireNonNull(moroutine, "a moroutine to mark idempotent is null"));
        }
        return new ClusterOptions(poolOptions, types, Collections.unmodifiableSet(copy), executorName);
    }

    /**
     * Runs the tasks through the Hazelcast executor of this name (configure its pool size with
     * Hazelcast's {@code ExecutorConfig}; each waits there while its member's worker runs it). The
     * pool's control messages and stream reads go through another, named {@code name + "-control"}.
     *
     * @param name the executor's name
     * @return a copy with it
     * @throws IllegalArgumentException if {@code name} is blank
     * @throws NullPointerException if {@code name} is null
     */
    public ClusterOptions withExecutorName(String name) {
        if (Objects.requireNonNull(name, "name").isBlank()) {
            throw new IllegalArgumentException("an executor name must not be blank");
        }
        return new ClusterOptions(poolOptions, types, idempotent, name);
    }

    /**
     * The pool options.
     *
     * @return the pool options
     */
    public PoolOptions poolOptions() {
        return poolOptions;
    }

    /**
     * The registered classes.
     *
     * @return the classes, in registration order
     */
    public List<Class<?>> registered() {
        return types;
    }

    /**
     * The moroutines marked idempotent.
     *
     * @return an unmodifiable set, by identity
     */
    public Set<Mo> idempotentMoroutines() {
        return idempotent;
    }

    /**
     * The name of the Hazelcast executor the tasks run through.
     *
     * @return the name
     */
    public String executorName() {
        return executorName;
    }

    @Override
    public String toString() {
        return "ClusterOptions[" + poolOptions + ", registered=" + types.stream().map(Class::getName).toList()
                + ", idempotent=" + idempotent.size() + " moroutines, executor=" + executorName + "]";
    }
}
