package dev.moroutine.internal.dispatch;

/**
 * How long one kind of wait spins before it parks, adapted to how spinning has been paying off.
 *
 * <p>Spinning wins when the thread being waited for runs on another core and answers within
 * microseconds; it loses badly when there are more runnable threads than cores, because the
 * spinner then holds the very core the other thread needs (a round trip that takes 0.3 µs on two
 * free cores takes the whole spin budget on one). So the budget doubles each time a wait ends
 * within the pure-spin first quarter of its budget (the other thread really ran on another core),
 * stays when a wait ends later, in the part where it also yields its core, and halves each time a
 * wait ends in a park. Every 64th wait spins the full budget to find out whether spinning pays
 * again, and one that ends without parking restores the full budget at once. With one processor it
 * never spins.
 *
 * <p>Only a park shrinks it because on a busy machine (another process on a core) most waits end
 * late even when spinning pays: the other thread runs only once the spinner yields. Shrinking on
 * each late end, as this budget first did, drove it to nothing there, so every hand-off parked and
 * paid a wake-up: pipelined tasks on one worker fell from about 1.4 M/s to 0.7 (ForkJoinPool 1.5)
 * with one core kept busy, in paired runs, and the same or better on an idle machine.
 *
 * <p>The part of a wait that only spins adapts too, between nothing and a quarter of the budget: it
 * halves each time a wait ends only after it has yielded (the other thread ran once this one let
 * go of its core: spinning first was wasted), doubles back each time a wait ends before it
 * yielded, is left alone by a park, and is whole again at every 64th wait. Kept at a quarter, a
 * busy machine paid it at every hand-off: a ping-pong round trip with one core kept busy took
 * 26–54 µs where parking at once took 7–10, and pipelined tasks with this rule went from 0.6–2.4
 * to 2.9–6.7 M/s (ForkJoinPool 2.0–2.2), the same on an idle machine (paired JMH runs).
 *
 * <p>A yield pays only while it hands the core to the thread waited for. Where other processes
 * keep every core busy, it hands the core to one of them for the rest of its time slice: with
 * both of two cores kept busy, the stream's waits yielded for 0.7 ms on average (a fifth of them
 * for about 3 ms). So the budget keeps an average of how long its yields took, each weighing an
 * eighth, and while it exceeds the whole budget its waits spin and then park without yielding;
 * the probe every 64th wait forgets it. Parked and woken, the two threads of a hand-off come to
 * share one core, where they take turns and yields pay again. With both cores busy, the
 * worker→caller stream went from 3.0–4.6 to 5.5–10.8 M items/s ({@code SubmissionPublisher}
 * 2.8–4.1), pipelined tasks with 64 in flight from 1.0–5.0 to 7.1–7.4 M/s and a ping-pong round
 * trip from 39–51 to 11–13 µs on average; with one core busy, pipelined tasks from 4.1–6.0 to
 * 6.9–7.9 M/s and the stream stayed at 13–22 (JMH, paired runs of 1 fork, 5 × 200 ms).
 *
 * <p>A {@linkplain #yielding yielding} budget is for hand-offs along a chain of more threads than
 * cores, as a task to a worker JVM takes (the caller, the pump and the child's worker thread, which
 * reads the requests while it waits: three threads for one round trip on two cores, four while the
 * child's reader is awake too). There, a spinner that holds its core
 * starves the next thread of the chain, and a thread that parks lets its core halt, which in a
 * virtual machine takes tens of microseconds to wake. So each step of its wait yields the core
 * ({@link Thread#yield}) to whatever is runnable, and the wait keeps its whole budget, never
 * adapting: on two cores this took a worker JVM's round trip from about 70 µs to about 25, and
 * its pipelined tasks from about 0.25 M/s to 0.6 M/s.
 *
 * <p>Fields are plain: concurrent waiters may race on them, which only blurs the adaptation.
 */
public final class SpinBudget {

    private static final boolean ONE_CPU = Runtime.getRuntime().availableProcessors() == 1;

    private final int max;
    private final boolean yielding;
    private int nanos;
    /** How long a wait only spins before it also yields: see the class comment. */
    private int spinFirst;
    /** Whether the current wait has yielded its core. */
    private boolean yielded;
    /** How long this budget's recent yields took: a running average in which each weighs an eighth. */
    private long yieldNanos;
    private int waits;

    /**
     * A budget that starts at, and never exceeds, {@code maxNanos}.
     *
     * @param maxNanos the longest spin, in nanoseconds
     */
    public SpinBudget(int maxNanos) {
        this(maxNanos, false);
    }

    private SpinBudget(int maxNanos, boolean yielding) {
        this.max = ONE_CPU ? 0 : maxNanos;
        this.yielding = yielding;
        this.nanos = this.max;
        this.spinFirst = this.max / 4;
    }

    /**
     * A budget whose waits yield the core at every step and always last {@code nanos} (see the
     * class comment); none with one processor, or on a virtual thread.
     *
     * @param nanos how long each wait spins, in nanoseconds
     * @return the budget
     */
    public static SpinBudget yielding(int nanos) {
        return new SpinBudget(nanos, true);
    }

    /**
     * One step of a wait that began at {@code startNanos} with the budget {@link #next()} gave:
     * see {@link Waiting#pause}, which this is unless the budget is {@linkplain #yielding yielding}.
     *
     * @param startNanos when the wait began ({@link System#nanoTime()})
     * @param spins the steps taken so far, from 1
     * @param budgetNanos the wait's budget
     * @return {@code false} once the budget is spent: time to park
     */
    public boolean pause(long startNanos, int spins, long budgetNanos) {
        if (!yielding) {
            return Waiting.pause(this, startNanos, spins, budgetNanos);
        }
        if (System.nanoTime() - startNanos > budgetNanos) {
            return false;
        }
        Thread.yield();
        return true;
    }

    /**
     * Like {@link #pause}, for a wait whose every step has already spun about a microsecond of its
     * own (a consumer that looks again later): it reads the clock at each step, not at every 16th,
     * so the wait yields, or parks, when its time comes rather than up to 16 steps later. On a busy
     * machine, where the waiter and the thread it waits for share one core, those steps were the
     * waiter's whole turn: 16 µs of spinning before each yield let the other thread run.
     *
     * @param startNanos when the wait began ({@link System#nanoTime()})
     * @param budgetNanos the wait's budget
     * @return {@code false} once the budget is spent: time to park
     */
    public boolean pauseAfterSpin(long startNanos, long budgetNanos) {
        return yielding ? pause(startNanos, 1, budgetNanos) : Waiting.pauseByClock(this, startNanos, budgetNanos);
    }

    /** How long a wait only spins before it also yields: see the class comment. */
    int spinFirst() {
        return spinFirst;
    }

    /**
     * The current wait has yielded its core once it had spun {@link #spinFirst()}, for {@code nanos}.
     *
     * @param nanos how long the yield took
     */
    void yielded(long nanos) {
        yielded = true;
        yieldNanos += (nanos - yieldNanos) >> 3;
    }

    /** Whether a wait past its pure spin yields: see the class comment. */
    boolean yieldsPay() {
        return yieldNanos <= max;
    }

    /**
     * The budget for the next wait; none on a virtual thread, which would hold its carrier.
     *
     * @return nanoseconds to spin
     */
    public long next() {
        yielded = false;
        if (Thread.currentThread().isVirtual()) {
            return 0;
        }
        if ((++waits & 63) == 0) {
            spinFirst = max / 4;
            yieldNanos = 0; // and yields are tried again
            return max;
        }
        return nanos;
    }

    /**
     * Records how a wait that used {@link #next()} ended.
     *
     * @param startNanos when the wait began
     * @param limit the budget it had
     * @param done whether it ended without parking
     */
    public void ended(long startNanos, long limit, boolean done) {
        if (yielding) {
            return;
        }
        if (!done) {
            nanos /= 2;
            return;
        }
        if (yielded) {
            spinFirst /= 2; // the other thread ran only once this one yielded: yield sooner
        } else if (spinFirst < max / 4) {
            spinFirst = Math.min(max / 4, Math.max(2 * spinFirst, max / 64));
        }
        if (limit == max) {
            nanos = max; // a full wait paid: the probe that restores the budget, or it was full anyway
        } else if (System.nanoTime() - startNanos <= limit / 4) {
            nanos = Math.min(max, Math.max(2 * nanos, max / 16));
        }
    }
}
