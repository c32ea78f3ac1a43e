package dev.moroutine;

import dev.moroutine.internal.stream.Streams;
import dev.moroutine.internal.dispatch.Timeouts;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of a pool made by {@link Moroutine#workers(int, PoolOptions)}. Immutable: each
 * {@code with…} method returns a copy.
 *
 * <pre>{@code
 * var options = PoolOptions.defaults()
 *         .withBalancer(leastBusy())
 *         .withShutdownTimeout(Duration.ofSeconds(5))
 *         .withTaskTimeout(Duration.ofSeconds(30))
 *         .withThreadNamePrefix("pricing");
 * try (var pool = workers(4, options)) { … }
 * }</pre>
 */
public final class PoolOptions {

    private final Balancer balancer;
    private final Duration shutdownTimeout;
    private final String threadNamePrefix;
    private final int highWaterMark;
    private final Duration taskTimeout;

    private PoolOptions(Balancer balancer, Duration shutdownTimeout, String threadNamePrefix, int highWaterMark,
            Duration taskTimeout) {
        this.balancer = balancer;
        this.shutdownTimeout = shutdownTimeout;
        this.threadNamePrefix = threadNamePrefix;
        this.highWaterMark = highWaterMark;
        this.taskTimeout = taskTimeout;
    }

    /**
     * The defaults: a fresh {@link Moroutine#roundRobin()}, no shutdown timeout ({@link Pool#close()}
     * waits for every task), thread names {@code moroutine-pool-<n>-worker-<index>}, a stream
     * high-water mark of 256 (the JDK's {@link java.util.concurrent.Flow#defaultBufferSize()}), and no task
     * timeout.
     *
     * @return default options
     */
    public static PoolOptions defaults() {
        return new PoolOptions(Moroutine.roundRobin(), null, null, Streams.DEFAULT_HIGH_WATER_MARK, null);
    }

    /**
     * Uses this balancer to place tasks.
     *
     * @param balancer the balancer
     * @return a copy with the balancer
     * @throws NullPointerException if {@code balancer} is null
     */
    public PoolOptions withBalancer(Balancer balancer) {
        return new PoolOptions(Objects.requireNonNull(balancer, "balancer"), shutdownTimeout, threadNamePrefix, highWaterMark,
                taskTimeout);
    }

    /**
     * Bounds how long {@link Pool#close()} waits for unfinished tasks before it interrupts them.
     *
     * @param timeout how long to wait; zero interrupts at once
     * @return a copy with the timeout
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    public PoolOptions withShutdownTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException(
                    "shutdown timeout must not be negative, was " + timeout + "; use Duration.ZERO to interrupt at once");
        }
        return new PoolOptions(balancer, timeout, threadNamePrefix, highWaterMark, taskTimeout);
    }

    /**
     * Names worker threads {@code <prefix>-worker-<index>}.
     *
     * @param prefix the prefix
     * @return a copy with the prefix
     * @throws IllegalArgumentException if {@code prefix} is blank
     * @throws NullPointerException if {@code prefix} is null
     */
    public PoolOptions withThreadNamePrefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isBlank()) {
            throw new IllegalArgumentException("thread name prefix must not be blank, was \"" + prefix + "\"");
        }
        return new PoolOptions(balancer, shutdownTimeout, prefix, highWaterMark, taskTimeout);
    }

    /**
     * Sets how many items a streaming task run on this pool may have in flight (emitted, not yet
     * consumed) before its producer blocks, unless the task sets its own
     * ({@link dev.moroutine.stream.StreamTask#withHighWaterMark}).
     *
     * @param items the high-water mark, at least 1
     * @return a copy with the setting
     * @throws IllegalArgumentException if {@code items} is less than 1
     */
    public PoolOptions withHighWaterMark(int items) {
        return new PoolOptions(balancer, shutdownTimeout, threadNamePrefix, Streams.checkHighWaterMark(items), taskTimeout);
    }

    /**
     * Gives every task run on this pool a timeout, unless the task has its own
     * ({@link Task#withTimeout}, which replaces this one, longer or shorter). It is counted from the
     * moment a worker starts the task; when it expires, the task is stopped as
     * {@link Task#withTimeout} describes: interrupted, its {@link Signal} arguments fire, and it fails
     * with a {@link java.util.concurrent.TimeoutException}. A streaming task's producer counts too:
     * it must finish its stream in time.
     *
     * @param timeout how long a task may run, positive
     * @return a copy with the timeout
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     * @throws NullPointerException if {@code timeout} is null
     */
    public PoolOptions withTaskTimeout(Duration timeout) {
        return new PoolOptions(balancer, shutdownTimeout, threadNamePrefix, highWaterMark, Timeouts.check(timeout));
    }

    /**
     * The stream high-water mark.
     *
     * @return items in flight before a producer blocks
     */
    public int highWaterMark() {
        return highWaterMark;
    }

    /**
     * The balancer.
     *
     * @return the balancer
     */
    public Balancer balancer() {
        return balancer;
    }

    /**
     * The shutdown timeout.
     *
     * @return the timeout, or empty when {@link Pool#close()} waits for every task
     */
    public Optional<Duration> shutdownTimeout() {
        return Optional.ofNullable(shutdownTimeout);
    }

    /**
     * The task timeout.
     *
     * @return the timeout, or empty when tasks without their own may run for any time
     */
    public Optional<Duration> taskTimeout() {
        return Optional.ofNullable(taskTimeout);
    }

    /**
     * The thread name prefix.
     *
     * @return the prefix, or empty for {@code moroutine-pool-<n>}
     */
    public Optional<String> threadNamePrefix() {
        return Optional.ofNullable(threadNamePrefix);
    }

    @Override
    public String toString() {
        return "PoolOptions[balancer=" + balancer + ", shutdownTimeout=" + shutdownTimeout()
                .map(Duration::toString).orElse("none") + ", threadNamePrefix=" + threadNamePrefix().orElse("default")
                + ", highWaterMark=" + highWaterMark
                + ", taskTimeout=" + taskTimeout().map(Duration::toString).orElse("none") + "]";
    }
}
