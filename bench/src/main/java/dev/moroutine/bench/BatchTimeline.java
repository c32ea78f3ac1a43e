package dev.moroutine.bench;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The mixed CPU-bound batch of {@link CpuBoundBenchmark} (64 primality tests of mixed cost), taken
 * apart batch by batch: a pool with one worker per CPU ({@code runAll}) beside a {@link
 * ForkJoinPool} of as many threads ({@code invokeAll}), run in turn on the same orders of the tests
 * (one per seed). Each test records when it started and ended and on which thread, so that besides
 * each batch's time it prints where the threads waited: before their first test (counted from the
 * first thread's first test) and at the end (from each thread's last test to the batch's last), and
 * how many batches ran on fewer threads than the pool has (on two CPUs: one thread ran all the tests
 * and the other none, as when the JIT's compiler thread holds the other core for the whole batch),
 * and the latency at each end of a batch: from the call to its first test's start (the call's own
 * set-up, the hand-off to a worker and that worker's wake-up), and from its last test's end to the
 * call's return.
 * Percentiles of the batches' times, means of the waits; the first third of the batches is warm-up.
 * JMH's average for the whole batch ({@link CpuBoundBenchmark}) mixes these with every other pause of
 * the run; this says which part of a batch a change moves.
 *
 * <p>Run (after {@code mvn -q -o -pl bench package -DskipTests}, from the repository root):
 * <pre>
 * mvn -q -o -pl bench dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp bench/target/classes:$(cat bench/target/cp.txt) dev.moroutine.bench.BatchTimeline --seeds=64,1,2,3,4,5
 * </pre>
 * Arguments: {@code --seeds=} (comma-separated; 64 is the benchmark's order), {@code --batches=}
 * (per system and seed, default 6,000).
 */
public final class BatchTimeline {

    private static final int TESTS = CpuBoundBenchmark.MIXED_TASKS;
    private static long[] numbers;
    private static final long[] STARTED = new long[TESTS];
    private static final long[] ENDED = new long[TESTS];
    private static final Thread[] THREAD = new Thread[TESTS];
    private static final AtomicInteger SLOT = new AtomicInteger();

    /** One test of the batch, by its position, timed. */
    public static final Mo1<Integer, Boolean> test = mo(BatchTimeline::timed);

    private BatchTimeline() {}

    private static boolean timed(int position) {
        int slot = SLOT.getAndIncrement() % TESTS;
        STARTED[slot] = System.nanoTime();
        boolean prime = CpuBoundBenchmark.isPrime(numbers[position]);
        ENDED[slot] = System.nanoTime();
        THREAD[slot] = Thread.currentThread();
        return prime;
    }

    /**
     * Runs the batches and prints one line per system and seed.
     *
     * @param args {@code --seeds=}, {@code --batches=}
     * @throws Exception if a test fails
     */
    public static void main(String[] args) throws Exception {
        long[] seeds = {CpuBoundBenchmark.MIXED_TASKS};
        int batches = 6_000;
        for (String arg : args) {
            String value = arg.substring(arg.indexOf('=') + 1);
            if (arg.startsWith("--seeds=")) {
                seeds = Arrays.stream(value.split(",")).mapToLong(Long::parseLong).toArray();
            } else if (arg.startsWith("--batches=")) {
                batches = Integer.parseInt(value);
            } else {
                throw new IllegalArgumentException("unknown argument \"" + arg + "\"; expected --seeds= or --batches=");
            }
        }
        int cpus = CpuBoundBenchmark.CPUS;
        System.out.printf(Locale.ROOT, "%d tests of mixed cost, %d threads, %d batches per line (first third dropped); µs%n",
                TESTS, cpus, batches);
        System.out.printf(Locale.ROOT, "%-12s %5s %6s %6s %6s %6s %14s %14s %6s %11s %9s%n",
                "system", "seed", "p25", "p50", "p75", "p90", "wait at start", "wait at end", "short", "first test", "returned");
        List<Task<Boolean>> tasks = new ArrayList<>();
        List<Callable<Boolean>> callables = new ArrayList<>();
        for (int i = 0; i < TESTS; i++) {
            int position = i;
            tasks.add(test.call(position));
            callables.add(() -> timed(position));
        }
        try (Pool pool = workers(cpus); ForkJoinPool forkJoinPool = new ForkJoinPool(cpus)) {
            for (long seed : seeds) {
                numbers = CpuBoundBenchmark.mixed(seed);
                print("moroutine", seed, run(batches, () -> pool.runAll(tasks)));
                print("ForkJoinPool", seed, run(batches, () -> {
                    for (Future<Boolean> prime : forkJoinPool.invokeAll(callables)) {
                        prime.get();
                    }
                }));
            }
        }
    }

    /** A batch, run by the caller. */
    @FunctionalInterface
    private interface BatchRun {
        void run() throws Exception;
    }

    /**
     * Each measured batch's time, wait at the start and wait at the end, nanoseconds; 1 where fewer
     * threads than CPUs ran it; and, in nanoseconds, from the call to its first test's start and from
     * its last test's end to the call's return.
     */
    private static long[][] run(int batches, BatchRun batch) throws Exception {
        int warmUp = batches / 3;
        long[][] measured = new long[6][batches - warmUp];
        for (int b = 0; b < batches; b++) {
            SLOT.set(0);
            long start = System.nanoTime();
            batch.run();
            long end = System.nanoTime();
            if (b >= warmUp) {
                measured[0][b - warmUp] = end - start;
                Timeline timeline = timeline();
                measured[1][b - warmUp] = timeline.waitAtStart();
                measured[2][b - warmUp] = timeline.waitAtEnd();
                measured[3][b - warmUp] = timeline.threads() < CpuBoundBenchmark.CPUS ? 1 : 0;
                measured[4][b - warmUp] = timeline.firstStart() - start;
                measured[5][b - warmUp] = end - timeline.lastEnd();
            }
        }
        return measured;
    }

    /**
     * Where the last batch's threads waited, summed over the threads that ran tests: before each
     * one's first test and after its last; how many threads they were; and when the batch's first test
     * started and its last ended ({@link System#nanoTime()}).
     */
    private record Timeline(long waitAtStart, long waitAtEnd, int threads, long firstStart, long lastEnd) {}

    private static Timeline timeline() {
        List<Thread> threads = new ArrayList<>();
        for (Thread thread : THREAD) {
            if (!threads.contains(thread)) {
                threads.add(thread);
            }
        }
        long firstStart = Arrays.stream(STARTED).min().orElseThrow();
        long lastEnd = Arrays.stream(ENDED).max().orElseThrow();
        long atStart = 0;
        long atEnd = 0;
        for (Thread thread : threads) {
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (int i = 0; i < TESTS; i++) {
                if (THREAD[i] == thread) {
                    first = Math.min(first, STARTED[i]);
                    last = Math.max(last, ENDED[i]);
                }
            }
            atStart += first - firstStart;
            atEnd += lastEnd - last;
        }
        return new Timeline(atStart, atEnd, threads.size(), firstStart, lastEnd);
    }

    private static void print(String system, long seed, long[][] measured) {
        long[] times = measured[0].clone();
        Arrays.sort(times);
        int n = times.length;
        System.out.printf(Locale.ROOT, "%-12s %5d %6.0f %6.0f %6.0f %6.0f %14.1f %14.1f %6d %11.1f %9.1f%n", system, seed,
                times[n / 4] / 1e3, times[n / 2] / 1e3, times[3 * n / 4] / 1e3, times[9 * n / 10] / 1e3,
                Arrays.stream(measured[1]).average().orElseThrow() / 1e3, Arrays.stream(measured[2]).average().orElseThrow() / 1e3,
                Arrays.stream(measured[3]).sum(), Arrays.stream(measured[4]).average().orElseThrow() / 1e3,
                Arrays.stream(measured[5]).average().orElseThrow() / 1e3);
    }
}
