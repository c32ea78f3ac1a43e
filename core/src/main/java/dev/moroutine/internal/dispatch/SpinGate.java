package dev.moroutine.internal.dispatch;

/**
 * How many idle workers of one pool may spin at once: one fewer than the processors, at least one.
 *
 * <p>An idle worker spins for a while before it parks, so that a task sent within microseconds
 * starts at once. But a pool with a worker per processor, all idle between the tasks of a batch,
 * then holds every core in spin loops, and the thread that submits the batch gets a core only
 * between them: on 2 cores, 100,000 noop tasks to 2 workers went at about 3.2 M tasks/s with both
 * spinning, 4.0–4.3 M with one (JMH {@code ParallelBenchmark}, 1 fork, 6 × 1 s, paired runs). So a
 * worker that finds as many siblings spinning as the gate lets through waits yielding its core at
 * every step instead ({@link SpinBudget#yielding}), which lets a runnable submitter in, and then
 * parks as usual. A pool with no more workers than the gate lets through never asks it.
 *
 * <p>Thread-safe and lock-free; every idle worker of the pool passes through it, so it sits on a
 * cache line of its own.
 */
public final class SpinGate {

    /** The most spinners of a pool on this machine. */
    static final int LIMIT = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);

    private final int limit;
    /** The spinners now, alone on its line: the workers update it at every wait, the submitters never touch it. */
    private final PaddedCounter spinning = new PaddedCounter();

    /** A gate of {@link #LIMIT} spinners. */
    public SpinGate() {
        this(LIMIT);
    }

    SpinGate(int limit) {
        this.limit = limit;
    }

    /**
     * Whether a pool of {@code workers} needs the gate: it has more than it lets through.
     *
     * @param workers the pool's workers now
     * @return whether its idle workers pass through it
     */
    boolean guards(int workers) {
        return workers > limit;
    }

    /**
     * Lets one more spinner through, unless as many as it allows spin now; one let through calls
     * {@link #leave()} when its spin ends.
     *
     * @return whether the caller may spin
     */
    boolean enter() {
        for (long n = spinning.get(); n < limit; n = spinning.get()) {
            if (spinning.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /** A spinner let through has stopped spinning. */
    void leave() {
        spinning.getAndAdd(-1);
    }
}
