package dev.moroutine.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Task timeouts: the check of a timeout setting, and the one timer thread they all share. A timer
 * is scheduled when a task with a timeout starts on its worker and cancelled when the task ends;
 * the executor drops a cancelled timer from its queue at once (its remove-on-cancel policy), so a
 * finished task leaves nothing behind, however long its timeout was.
 */
public final class Timeouts {

    private Timeouts() {}

    /**
     * Checks a task timeout.
     *
     * @param timeout the timeout
     * @return it
     * @throws IllegalArgumentException if it is zero or negative
     * @throws NullPointerException if it is null
     */
    public static Duration check(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a task timeout must be positive, was " + timeout
                    + "; leave it unset for no timeout");
        }
        return timeout;
    }

    /** Runs {@code action} on the timer thread after {@code delay}, unless the returned future is cancelled first. */
    static ScheduledFuture<?> schedule(Runnable action, Duration delay) {
        // convert() saturates, so a timeout of centuries is "never" instead of an overflow.
        return Timer.EXECUTOR.schedule(action, TimeUnit.NANOSECONDS.convert(delay), TimeUnit.NANOSECONDS);
    }

    /** Holds the timer thread, started by the first task that has a timeout. */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor EXECUTOR = start();

        private static ScheduledThreadPoolExecutor start() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                    runnable -> Thread.ofPlatform().name("moroutine-timeouts").daemon(true).unstarted(runnable));
            executor.setRemoveOnCancelPolicy(true);
            return executor;
        }
    }
}
