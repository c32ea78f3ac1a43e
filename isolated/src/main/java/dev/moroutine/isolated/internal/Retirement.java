package dev.moroutine.isolated.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * When a worker retires its JVM for a fresh one ({@link Settings#maxTasks()}, {@link Settings#idleTimeout()}).
 *
 * <h2>The hand-over, in the worker's pump</h2>
 * <pre>
 * current JVM runs ──(its limit of tasks sent, or idle too long after tasks)──► successor launched
 *   at its limit the current JVM gets no more tasks; idle, it still takes those that come until the
 *   successor takes over; it finishes those it was sent (they stay in order)
 * successor connected and current JVM has answered all ──► current gets STOP (it closes its
 *   task-arg values and exits; a helper thread reaps it), successor becomes current, gets the queue
 * </pre>
 * A task is sent to exactly one JVM and answered there once, so none is lost or run twice; the
 * queue waits for the successor only as long as the JVM start that overlaps the last tasks. If
 * the current JVM dies meanwhile, the successor replaces it; if the successor fails to start, or
 * dies after it was ready but before it takes over (its process ended or its socket ended, looked
 * at again just before the hand-over), that counts as a death and another is launched: a task is
 * never sent to a successor already dead.
 */
final class Retirement {

    /** A JVM's limit is drawn between this share of the setting and all of it. */
    private static final double JITTER = 0.1;

    private final int maxTasks;
    private final long idleNanos;

    Retirement(Settings settings) {
        this.maxTasks = settings.maxTasks();
        this.idleNanos = settings.idleTimeout() == null ? -1 : TimeUnit.NANOSECONDS.convert(settings.idleTimeout());
    }

    /** How many tasks a new JVM may be sent; {@link Long#MAX_VALUE} for no limit. */
    long nextLimit() {
        if (maxTasks <= 0) {
            return Long.MAX_VALUE;
        }
        return maxTasks - (long) Math.floor(ThreadLocalRandom.current().nextDouble() * JITTER * maxTasks);
    }

    /** How long a JVM that ran tasks may stay idle, in nanoseconds; -1 for no limit. */
    long idleNanos() {
        return idleNanos;
    }
}
