package dev.moroutine.jcstress;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * Bounds an actor's blocking call, so that a lost wake-up shows as the outcome {@link #LOST}
 * instead of a fork that never ends: jcstress 0.16 has no timeout of its own (outside
 * {@code Mode.Termination}, whose actors record no results). A daemon thread interrupts a call
 * that has been blocked for longer than {@link #LIMIT}, and prints where it was stuck; the
 * library's blocking calls end with a {@code CancellationException} when interrupted.
 *
 * <p>A call ends either by moving its own watch back to idle or, once the watchdog has claimed
 * the watch (a CAS to {@code FIRED}), by waiting for the interrupt and clearing it: so an
 * interrupt meant for one call never reaches the next one on that actor thread.
 */
public final class Watchdog {

    /** Far beyond any legitimate wait of these tests (microseconds); a lost wake-up waits forever. */
    public static final Duration LIMIT = Duration.ofSeconds(5);
    /** The outcome of a call that the watchdog had to interrupt. */
    public static final int LOST = -1;

    private static final long IDLE = Long.MIN_VALUE;
    private static final long FIRED = Long.MAX_VALUE;
    private static final long LIMIT_NANOS = LIMIT.toNanos();

    private static final List<Watch> WATCHES = new CopyOnWriteArrayList<>();
    private static final ThreadLocal<Watch> MINE = ThreadLocal.withInitial(Watch::register);

    static {
        ScheduledExecutorService patrol = Executors.newSingleThreadScheduledExecutor(
                task -> Thread.ofPlatform().name("jcstress-watchdog").daemon(true).unstarted(task));
        patrol.scheduleWithFixedDelay(Watchdog::patrol, 100, 100, TimeUnit.MILLISECONDS);
    }

    private Watchdog() {}

    /** One actor thread's watch: since when its current call has been blocked, or IDLE, or FIRED. */
    private static final class Watch {
        final Thread thread = Thread.currentThread();
        final AtomicLong since = new AtomicLong(IDLE);
        volatile boolean interrupted;

        static Watch register() {
            Watch watch = new Watch();
            WATCHES.add(watch);
            return watch;
        }
    }

    /**
     * Runs a blocking call of an actor.
     *
     * @param call the call; it returns its outcome, and turns the exceptions it expects into outcomes
     * @return the call's outcome, or {@link #LOST} if it had to be interrupted
     */
    public static int bounded(IntSupplier call) {
        Watch watch = MINE.get();
        long start = System.nanoTime();
        watch.since.set(start);
        int outcome = LOST;
        try {
            outcome = call.getAsInt();
        } finally {
            if (!watch.since.compareAndSet(start, IDLE)) {
                outcome = LOST;
                while (!watch.interrupted) {
                    Thread.onSpinWait(); // the watchdog is between its claim and its interrupt
                }
                watch.interrupted = false;
                Thread.interrupted();
                watch.since.set(IDLE);
            }
        }
        return outcome;
    }

    private static void patrol() {
        long now = System.nanoTime();
        for (Watch watch : WATCHES) {
            long since = watch.since.get();
            if (since != IDLE && since != FIRED && now - since > LIMIT_NANOS && watch.since.compareAndSet(since, FIRED)) {
                StringBuilder where = new StringBuilder("jcstress watchdog: " + watch.thread.getName() + " was blocked for more than "
                        + LIMIT + " (a lost wake-up?), interrupting it; it was at:");
                for (StackTraceElement frame : watch.thread.getStackTrace()) {
                    where.append(System.lineSeparator()).append("    at ").append(frame);
                }
                System.err.println(where);
                watch.thread.interrupt();
                watch.interrupted = true;
            }
        }
    }
}
