package dev.moroutine.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long a cache line takes to pass from one core to another on this machine: two threads take
 * turns writing one counter, each spinning until it sees the other's write. Every hand-off between
 * threads (a task to a worker, its result back, a stream's item) pays at least one such pass, and
 * on a virtual machine it changes with where the hypervisor places the virtual CPUs, so a report
 * gives it beside its figures. Stateless; each call starts one thread and blocks until both are done.
 */
final class CoreToCore {

    /** Round trips per run, for the report's header: about a second at 230 ns a pass. */
    static final int ROUND_TRIPS = 200_000;
    /** Runs per measurement for the header: the median is reported. */
    static final int RUNS = 9;
    /**
     * Round trips per run before and after each JMH fork ({@link CoreToCoreProfiler}): 5 runs take 46 ms at 230 ns, two
     * fifths of what 50,000 took (twice per fork, about 90 forks in a quick run: 23 s of its 5 min 25 s), and their
     * median still tells the machine's states apart, which differ several-fold.
     */
    static final int FORK_ROUND_TRIPS = 20_000;
    /** Runs per measurement before and after each JMH fork. */
    static final int FORK_RUNS = 5;

    private CoreToCore() {}

    /**
     * Measures the one-way pass.
     *
     * @param runs how many runs: the median is returned
     * @param roundTrips round trips per run
     * @param limit how long all the runs may take together; on a machine too busy to run both threads, the
     *     measurement stops then
     * @return nanoseconds per one-way pass, the median of the runs; NaN if the limit passed first
     * @throws InterruptedException if interrupted while waiting for the other thread
     */
    static double oneWayNanos(int runs, int roundTrips, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        double[] perRun = new double[runs];
        for (int run = 0; run < runs; run++) {
            if (System.nanoTime() > deadline) { // a pass may never wait long enough to look at the clock
                return Double.NaN;
            }
            AtomicLong turn = new AtomicLong();
            Thread other = Thread.ofPlatform().daemon().name("core-to-core").start(() -> play(turn, 1, roundTrips, deadline));
            long start = System.nanoTime();
            boolean done = play(turn, 0, roundTrips, deadline);
            long took = System.nanoTime() - start;
            other.join();
            if (!done) {
                return Double.NaN;
            }
            perRun[run] = took / (2.0 * roundTrips);
        }
        Arrays.sort(perRun);
        return perRun[runs / 2];
    }

    /** Takes this side's turns (even or odd counts); false once the deadline passed, which ends the other side too. */
    private static boolean play(AtomicLong turn, int side, int roundTrips, long deadline) {
        long last = 2L * roundTrips;
        for (long mine = side; mine < last; mine += 2) {
            for (int spins = 1; turn.get() != mine; spins++) {
                if (turn.get() < 0) {
                    return false;
                }
                if ((spins & 1023) == 0 && System.nanoTime() > deadline) {
                    turn.set(-1);
                    return false;
                }
                Thread.onSpinWait();
            }
            turn.set(mine + 1);
        }
        return true;
    }
}
