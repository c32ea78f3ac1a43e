package dev.moroutine.internal.dispatch;

import dev.moroutine.internal.shared.DelayedActions;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Task timeouts: the check of a timeout setting, and their timers on the library's one timer
 * thread ({@link DelayedActions}). A timer is scheduled when a task with a timeout starts on its
 * worker and cancelled when the task ends; a cancelled timer leaves the queue at once, so a
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
        return DelayedActions.schedule(action, TimeUnit.NANOSECONDS.convert(delay));
    }
}
