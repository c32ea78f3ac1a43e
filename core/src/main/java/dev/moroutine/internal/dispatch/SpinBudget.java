package dev.moroutine.internal.dispatch;

/**
 * How long one kind of wait spins before it parks, adapted to how spinning has been paying off.
 *
 * <p>Spinning wins when the thread being waited for runs on another core and answers within
 * microseconds; it loses badly when there are more runnable threads than cores, because the
 * spinner then holds the very core the other thread needs (a round trip that takes 0.3 µs on two
 * free cores takes the whole spin budget on one). So the budget doubles each time a wait ends
 * within the pure-spin first quarter of its budget (the other thread really ran on another core),
 * and halves each time it ends later: after yielding the core, which is as slow as parking, or in
 * a park. Every 64th wait spins the full budget to find out whether spinning pays again. With one
 * processor it never spins.
 *
 * <p>Fields are plain: concurrent waiters may race on them, which only blurs the adaptation.
 */
public final class SpinBudget {

    private static final boolean ONE_CPU = Runtime.getRuntime().availableProcessors() == 1;

    private final int max;
    private int nanos;
    private int waits;

    /**
     * A budget that starts at, and never exceeds, {@code maxNanos}.
     *
     * @param maxNanos the longest spin, in nanoseconds
     */
    public SpinBudget(int maxNanos) {
        this.max = ONE_CPU ? 0 : maxNanos;
        this.nanos = this.max;
    }

    /**
     * The budget for the next wait; none on a virtual thread, which would hold its carrier.
     *
     * @return nanoseconds to spin
     */
    public long next() {
        if (Thread.currentThread().isVirtual()) {
            return 0;
        }
        return (++waits & 63) == 0 ? max : nanos;
    }

    /**
     * Records how a wait that used {@link #next()} ended.
     *
     * @param startNanos when the wait began
     * @param limit the budget it had
     * @param done whether it ended without parking
     */
    public void ended(long startNanos, long limit, boolean done) {
        boolean cheap = done && System.nanoTime() - startNanos <= limit / 4;
        nanos = cheap ? Math.min(max, Math.max(2 * nanos, max / 16)) : nanos / 2;
    }
}
