package dev.moroutine.isolated;

import dev.moroutine.PoolOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Settings of a pool of isolated workers made by {@link Isolated#workers(int, IsolatedOptions)}:
 * its {@link PoolOptions} (balancer, shutdown and task timeouts, names, stream high-water mark),
 * how each worker JVM is started, and which classes may cross to it. Immutable: each {@code with…}
 * method and {@link #register} return a copy.
 *
 * <pre>{@code
 * var options = IsolatedOptions.defaults()
 *         .withPoolOptions(PoolOptions.defaults().withTaskTimeout(Duration.ofSeconds(30)))
 *         .withMaxHeap("256m")
 *         .withSystemProperty("app.mode", "batch")
 *         .register(Quote.class, Side.class);
 * try (Pool pool = Isolated.workers(2, options)) { … }
 * }</pre>
 */
public final class IsolatedOptions {

    private static final Pattern HEAP_SIZE = Pattern.compile("[1-9][0-9]*[kKmMgG]?");

    private final PoolOptions poolOptions;
    private final List<String> jvmOptions;
    private final Map<String, String> systemProperties;
    private final Map<String, String> environment;
    private final String maxHeap;
    private final List<Class<?>> types;
    private final Duration startTimeout;
    private final int crashLimit;
    private final Duration crashWindow;
    /** 0: no limit. */
    private final int maxTasks;
    /** null: none. */
    private final Duration idleTimeout;

    private IsolatedOptions(PoolOptions poolOptions, List<String> jvmOptions, Map<String, String> systemProperties,
            Map<String, String> environment, String maxHeap, List<Class<?>> types, Duration startTimeout, int crashLimit,
            Duration crashWindow, int maxTasks, Duration idleTimeout) {
        this.poolOptions = poolOptions;
        this.jvmOptions = jvmOptions;
        this.systemProperties = systemProperties;
        this.environment = environment;
        this.maxHeap = maxHeap;
        this.types = types;
        this.startTimeout = startTimeout;
        this.crashLimit = crashLimit;
        this.crashWindow = crashWindow;
        this.maxTasks = maxTasks;
        this.idleTimeout = idleTimeout;
    }

    /**
     * The defaults: {@link PoolOptions#defaults()}, the worker JVMs started with no options of their
     * own (the JVM's default heap), this process's environment, no registered classes, 30 seconds
     * for a worker JVM to start, and a crash limit of 5 unexpected deaths within 30 seconds.
     *
     * @return default options
     */
    public static IsolatedOptions defaults() {
        return new IsolatedOptions(PoolOptions.defaults(), List.of(), Map.of(), Map.of(), null, List.of(),
                Duration.ofSeconds(30), 5, Duration.ofSeconds(30), 0, null);
    }

    /**
     * Uses these pool options: balancer, shutdown timeout, worker names, stream high-water mark and
     * task timeout. A task timeout on isolated workers kills the worker JVM that runs over it (a new
     * one replaces it), so it stops any task, even one that ignores interrupts.
     *
     * @param options the pool options
     * @return a copy with them
     * @throws NullPointerException if {@code options} is null
     */
    public IsolatedOptions withPoolOptions(PoolOptions options) {
        return new IsolatedOptions(Objects.requireNonNull(options, "options"), jvmOptions, systemProperties, environment,
                maxHeap, types, startTimeout, crashLimit, crashWindow, maxTasks, idleTimeout);
    }

    /**
     * Starts each worker JVM with these options (say {@code -XX:+UseSerialGC}), after the library's
     * own and before the class path; replaces options set before.
     *
     * @param options JVM options
     * @return a copy with them
     * @throws NullPointerException if an option is null
     */
    public IsolatedOptions withJvmOptions(String... options) {
        List<String> copy = List.of(options); // refuses nulls
        return new IsolatedOptions(poolOptions, copy, systemProperties, environment, maxHeap, types, startTimeout, crashLimit,
                crashWindow, maxTasks, idleTimeout);
    }

    /**
     * Sets a system property in each worker JVM ({@code -Dkey=value}).
     *
     * @param key the property's name
     * @param value its value
     * @return a copy with it
     * @throws IllegalArgumentException if {@code key} is blank or contains {@code =}
     * @throws NullPointerException if either is null
     */
    public IsolatedOptions withSystemProperty(String key, String value) {
        Objects.requireNonNull(value, "value");
        if (Objects.requireNonNull(key, "key").isBlank() || key.contains("=")) {
            throw new IllegalArgumentException("a system property's name must be non-blank and without '=', was \"" + key + "\"");
        }
        return new IsolatedOptions(poolOptions, jvmOptions, with(systemProperties, key, value), environment, maxHeap, types,
                startTimeout, crashLimit, crashWindow, maxTasks, idleTimeout);
    }

    /**
     * Sets an environment variable of each worker JVM, which otherwise inherits this process's environment.
     *
     * @param name the variable's name
     * @param value its value
     * @return a copy with it
     * @throws IllegalArgumentException if {@code name} is blank or contains {@code =}
     * @throws NullPointerException if either is null
     */
    public IsolatedOptions withEnvironment(String name, String value) {
        Objects.requireNonNull(value, "value");
        if (Objects.requireNonNull(name, "name").isBlank() || name.contains("=")) {
            throw new IllegalArgumentException("an environment variable's name must be non-blank and without '=', was \""
                    + name + "\"");
        }
        return new IsolatedOptions(poolOptions, jvmOptions, systemProperties, with(environment, name, value), maxHeap, types,
                startTimeout, crashLimit, crashWindow, maxTasks, idleTimeout);
    }

    private static Map<String, String> with(Map<String, String> map, String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(map);
        copy.put(key, value);
        return Collections.unmodifiableMap(copy);
    }

    /**
     * Bounds the heap of each worker JVM ({@code -Xmx}).
     *
     * @param size a size as {@code -Xmx} takes it: a number with an optional unit, {@code 512m}, {@code 2g}
     * @return a copy with it
     * @throws IllegalArgumentException if {@code size} is not such a size
     * @throws NullPointerException if {@code size} is null
     */
    public IsolatedOptions withMaxHeap(String size) {
        if (!HEAP_SIZE.matcher(Objects.requireNonNull(size, "size")).matches()) {
            throw new IllegalArgumentException("a heap size is a positive number with an optional unit k, m or g (as -Xmx"
                    + " takes it), like \"512m\"; was \"" + size + "\"");
        }
        return new IsolatedOptions(poolOptions, jvmOptions, systemProperties, environment, size, types, startTimeout,
                crashLimit, crashWindow, maxTasks, idleTimeout);
    }

    /**
     * Lets instances of these classes cross to and from the worker JVMs, as arguments, results or
     * parts of them. Strings, boxed primitives, arrays of them, and the JDK's collections, maps,
     * time and big-number types cross without registering; records, enums and other classes of
     * yours must be registered, and a task whose argument is of a class that is not fails when it
     * is run or submitted, with a message naming the class. Classes must be registered in the same
     * order for the pool's whole life (this list is that order). In a named module, open the package
     * of a registered class to {@code org.apache.fory.core}, which encodes it.
     *
     * @param classes the classes, added after those registered before
     * @return a copy with them
     * @throws IllegalArgumentException if one is a primitive type, or registered already
     * @throws NullPointerException if one is null
     */
    public IsolatedOptions register(Class<?>... classes) {
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
        return new IsolatedOptions(poolOptions, jvmOptions, systemProperties, environment, maxHeap, List.copyOf(copy),
                startTimeout, crashLimit, crashWindow, maxTasks, idleTimeout);
    }

    /**
     * Bounds how long a worker JVM may take to start; one that takes longer is killed, and the
     * pool fails to start (or, for a replacement, it counts as a death).
     *
     * @param timeout the time, positive
     * @return a copy with it
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is null
     */
    public IsolatedOptions withStartTimeout(Duration timeout) {
        if (!Objects.requireNonNull(timeout, "timeout").isPositive()) {
            throw new IllegalArgumentException("a start timeout must be positive, was " + timeout);
        }
        return new IsolatedOptions(poolOptions, jvmOptions, systemProperties, environment, maxHeap, types, timeout, crashLimit,
                crashWindow, maxTasks, idleTimeout);
    }

    /**
     * Stops a crash loop: when {@code deaths} worker JVMs of the pool die unexpectedly (not killed
     * for a timeout, nor stopped with the pool) within {@code window}, the pool stops replacing
     * them, and every task on it, queued or running, fails with a message that says so; tasks
     * given to it later are refused.
     *
     * @param deaths how many deaths stop the pool, at least 1
     * @param window within how long, positive
     * @return a copy with it
     * @throws IllegalArgumentException if {@code deaths} is less than 1 or {@code window} is not positive
     * @throws NullPointerException if {@code window} is null
     */
    public IsolatedOptions withCrashLimit(int deaths, Duration window) {
        if (deaths < 1 || !Objects.requireNonNull(window, "window").isPositive()) {
            throw new IllegalArgumentException("a crash limit is at least 1 death within a positive time, was " + deaths
                    + " within " + window);
        }
        return new IsolatedOptions(poolOptions, jvmOptions, systemProperties, environment, maxHeap, types, startTimeout, deaths,
                window, maxTasks, idleTimeout);
    }

    /**
     * Retires each worker JVM after it has run about {@code tasks} tasks: a new JVM is started
     * while the old one finishes the tasks it was sent, then takes over, and the old one exits
     * gracefully (its task-arg values are closed); no task is lost or run twice. Each JVM's limit
     * is drawn between 90% and 100% of {@code tasks}, so that the workers of a pool do not all
     * retire at once. For code that leaks (memory, native handles, threads) over many tasks.
     *
     * @param tasks the most tasks one JVM runs, at least 1
     * @return a copy with it
     * @throws IllegalArgumentException if {@code tasks} is less than 1
     */
    public IsolatedOptions withMaxTasksPerJvm(int tasks) {
        if (tasks < 1) {
            throw new IllegalArgumentException("a worker JVM runs at least 1 task before it is retired, was " + tasks);
        }
        return new IsolatedOptions(poolOptions, jvmOptions, systemProperties, environment, maxHeap, types, startTimeout,
                crashLimit, crashWindow, tasks, idleTimeout);
    }

    /**
     * Retires a worker JVM that has run tasks and then been idle for {@code timeout}: a fresh JVM
     * is started, then the old one exits gracefully (its task-arg values are closed, its heap
     * returned to the system). A fresh JVM that has run no task is not retired for being idle,
     * so an idle pool does not keep restarting its JVMs.
     *
     * @param timeout the idle time, positive
     * @return a copy with it
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is null
     */
    public IsolatedOptions withIdleTimeout(Duration timeout) {
        if (!Objects.requireNonNull(timeout, "timeout").isPositive()) {
            throw new IllegalArgumentException("an idle timeout must be positive, was " + timeout);
        }
        return new IsolatedOptions(poolOptions, jvmOptions, systemProperties, environment, maxHeap, types, startTimeout,
                crashLimit, crashWindow, maxTasks, timeout);
    }

    /**
     * How many tasks a worker JVM runs at most before it is retired ({@link #withMaxTasksPerJvm}).
     *
     * @return the limit, or empty for none
     */
    public java.util.OptionalInt maxTasksPerJvm() {
        return maxTasks == 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(maxTasks);
    }

    /**
     * How long a worker JVM that has run tasks may stay idle before it is retired ({@link #withIdleTimeout}).
     *
     * @return the time, or empty for no limit
     */
    public Optional<Duration> idleTimeout() {
        return Optional.ofNullable(idleTimeout);
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
     * The worker JVMs' own options, as given to {@link #withJvmOptions}.
     *
     * @return the options
     */
    public List<String> jvmOptions() {
        return jvmOptions;
    }

    /**
     * The system properties set in the worker JVMs.
     *
     * @return the properties, in the order they were set
     */
    public Map<String, String> systemProperties() {
        return systemProperties;
    }

    /**
     * The environment variables set in the worker JVMs.
     *
     * @return the variables, in the order they were set
     */
    public Map<String, String> environment() {
        return environment;
    }

    /**
     * The worker JVMs' maximum heap.
     *
     * @return the size, or empty for the JVM's default
     */
    public Optional<String> maxHeap() {
        return Optional.ofNullable(maxHeap);
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
     * How long a worker JVM may take to start.
     *
     * @return the timeout
     */
    public Duration startTimeout() {
        return startTimeout;
    }

    /**
     * How many unexpected deaths within {@link #crashWindow()} stop the pool.
     *
     * @return the number of deaths
     */
    public int crashLimit() {
        return crashLimit;
    }

    /**
     * The time within which {@link #crashLimit()} deaths stop the pool.
     *
     * @return the window
     */
    public Duration crashWindow() {
        return crashWindow;
    }

    @Override
    public String toString() {
        return "IsolatedOptions[" + poolOptions + ", jvmOptions=" + jvmOptions + ", systemProperties=" + systemProperties
                + ", environment=" + environment.keySet() + ", maxHeap=" + maxHeap().orElse("default") + ", registered="
                + types.stream().map(Class::getName).toList() + ", startTimeout=" + startTimeout + ", crashLimit=" + crashLimit
                + " within " + crashWindow + (maxTasks > 0 ? ", maxTasksPerJvm=" + maxTasks : "")
                + (idleTimeout != null ? ", idleTimeout=" + idleTimeout : "") + "]";
    }
}
