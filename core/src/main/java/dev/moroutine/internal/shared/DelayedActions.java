package dev.moroutine.internal.shared;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The library's one timer thread (a daemon, started on first use), for the timeouts of
 * asynchronous waits and of tasks. A cancelled action leaves the queue at once (remove-on-cancel),
 * so an action cancelled long before its delay keeps nothing reachable. Actions must be short and
 * must not block: they delay every other timeout in the JVM.
 */
public final class DelayedActions {

    private DelayedActions() {}

    /**
     * Runs {@code action} on the timer thread after {@code delayNanos}, unless the returned future is cancelled first.
     *
     * @param action what to run
     * @param delayNanos the delay, in nanoseconds
     * @return the scheduled action, to cancel
     */
    public static ScheduledFuture<?> schedule(Runnable action, long delayNanos) {
        return Timer.EXECUTOR.schedule(action, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** Holds the timer thread, started by the first action. */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor EXECUTOR = start();

        private static ScheduledThreadPoolExecutor start() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                    Thread.ofPlatform().name("moroutine-timeouts").daemon(true).factory());
            executor.setRemoveOnCancelPolicy(true);
            return executor;
        }
    }
}
