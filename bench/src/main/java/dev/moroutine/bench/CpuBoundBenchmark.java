package dev.moroutine.bench;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * CPU-bound speed-up: trial-division primality tests (the seed's {@code isPrime}), one after the other on
 * the caller ({@code sequential}), or all at once on a pool with one worker per CPU ({@code moroutine}:
 * {@code pool.runAll(…)}; {@code ForkJoinPool}: {@code invokeAll}). Two batches: {@value #EVEN},
 * {@code isPrime(999_999_937)} {@link #TASKS} times (twice per CPU, each test as long as the others), and
 * {@value #MIXED}, {@link #MIXED_TASKS} tests of primes from about 10<sup>6</sup> to 10<sup>9</sup> in a
 * seeded order, so that the tests' costs differ up to 32-fold and a pool that hands out work unevenly
 * shows it. The score is the time for the whole batch, in milliseconds; the results table divides the
 * sequential time by each pool's for the speed-up.
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=CpuBound
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class CpuBoundBenchmark {

    /** A prime, so that trial division runs to its square root. */
    public static final long PRIME = 999_999_937L;

    /** The CPUs, and so the workers of each pool. */
    public static final int CPUS = Runtime.getRuntime().availableProcessors();

    /** How many times {@link #PRIME} is tested per operation of the {@value #EVEN} batch: two per CPU. */
    public static final int TASKS = 2 * CPUS;

    /** How many tests the {@value #MIXED} batch has. */
    public static final int MIXED_TASKS = 64;

    /** The batch of equal tests. */
    public static final String EVEN = "even";

    /** The batch of tests of mixed cost. */
    public static final String MIXED = "mixed";

    /** The largest primes below 10<sup>6</sup>, 10<sup>7</sup>, 10<sup>8</sup> and 10<sup>9</sup>: each test costs √n divisions. */
    private static final long[] PRIMES_OF_MIXED_COST = {999_983L, 9_999_991L, 99_999_989L, PRIME};

    /** On the caller, one after the other. */
    public static final String SEQUENTIAL = "sequential";

    /** The seed's {@code isPrime}, as a moroutine. */
    public static final Mo1<Long, Boolean> isPrime = mo(CpuBoundBenchmark::isPrime);

    /** Where the tests run. */
    @Param({SEQUENTIAL, Dispatcher.MOROUTINE, Dispatcher.FORK_JOIN_POOL})
    public String system;

    /** Which batch: {@value #EVEN} or {@value #MIXED}. */
    @Param({EVEN, MIXED})
    public String batch;

    private long[] numbers;

    private Pool pool;
    private ForkJoinPool forkJoinPool;
    private List<Task<Boolean>> tasks;
    private List<Callable<Boolean>> callables;

    /** Starts the pool. */
    @Setup(Level.Trial)
    public void setup() {
        numbers = numbers(batch);
        tasks = new ArrayList<>();
        callables = new ArrayList<>();
        for (long n : numbers) {
            tasks.add(isPrime.call(n));
            callables.add(() -> isPrime(n));
        }
        switch (system) {
            case SEQUENTIAL -> { }
            case Dispatcher.MOROUTINE -> pool = workers(CPUS);
            case Dispatcher.FORK_JOIN_POOL -> forkJoinPool = new ForkJoinPool(CPUS);
            default -> throw new IllegalArgumentException("unknown system \"" + system + "\"");
        }
    }

    /**
     * The numbers a batch tests, all prime.
     *
     * @param batch {@value #EVEN} or {@value #MIXED}
     * @return {@link #PRIME} {@link #TASKS} times, or {@link #MIXED_TASKS} primes of mixed size, the same each time
     */
    public static long[] numbers(String batch) {
        return switch (batch) {
            case EVEN -> LongStream.generate(() -> PRIME).limit(TASKS).toArray();
            case MIXED -> mixed(MIXED_TASKS);
            default -> throw new IllegalArgumentException("unknown batch \"" + batch + "\": give " + EVEN + " or " + MIXED);
        };
    }

    /**
     * {@link #MIXED_TASKS} primes of mixed size in the order a seed gives; the {@value #MIXED} batch's seed is {@link #MIXED_TASKS}.
     *
     * @param seed the order's seed
     * @return the primes
     */
    public static long[] mixed(long seed) {
        return new SplittableRandom(seed).ints(MIXED_TASKS, 0, PRIMES_OF_MIXED_COST.length).mapToLong(i -> PRIMES_OF_MIXED_COST[i]).toArray();
    }

    /**
     * Tests the batch's numbers.
     *
     * @return how many of the tests said prime: all of them
     * @throws Exception if a task failed
     */
    @Benchmark
    public int primes() throws Exception {
        int primes = 0;
        if (pool != null) {
            for (boolean prime : pool.runAll(tasks)) {
                primes += prime ? 1 : 0;
            }
        } else if (forkJoinPool != null) {
            for (Future<Boolean> prime : forkJoinPool.invokeAll(callables)) {
                primes += prime.get() ? 1 : 0;
            }
        } else {
            for (long n : numbers) {
                primes += isPrime(n) ? 1 : 0;
            }
        }
        return primes;
    }

    /**
     * Trial division, as in the seed's README.
     *
     * @param n the number
     * @return whether it is prime
     */
    public static boolean isPrime(long n) {
        if (n < 2) {
            return false;
        }
        for (long i = 2; i * i <= n; i++) {
            if (n % i == 0) {
                return false;
            }
        }
        return true;
    }

    /** Stops the pool. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (pool != null) {
            pool.close();
        }
        if (forkJoinPool != null) {
            forkJoinPool.close();
        }
    }
}
