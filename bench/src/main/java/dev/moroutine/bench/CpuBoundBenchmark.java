package dev.moroutine.bench;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
 * CPU-bound speed-up: {@code isPrime(999_999_937)} (the seed's example, trial division) {@link #TASKS}
 * times, that is twice per CPU: one after the other on the caller ({@code sequential}), or all at
 * once on a pool with one worker per CPU ({@code moroutine}: {@code pool.runAll(…)};
 * {@code ForkJoinPool}: {@code invokeAll}). The score is the time for all of them, in milliseconds;
 * the results table divides the sequential time by each pool's for the speed-up.
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

    /** How many times {@link #PRIME} is tested per operation: two per CPU. */
    public static final int TASKS = 2 * CPUS;

    /** On the caller, one after the other. */
    public static final String SEQUENTIAL = "sequential";

    /** The seed's {@code isPrime}, as a moroutine. */
    public static final Mo1<Long, Boolean> isPrime = mo(CpuBoundBenchmark::isPrime);

    /** Where the tests run. */
    @Param({SEQUENTIAL, Dispatcher.MOROUTINE, Dispatcher.FORK_JOIN_POOL})
    public String system;

    private Pool pool;
    private ForkJoinPool forkJoinPool;
    private List<Task<Boolean>> tasks;
    private List<Callable<Boolean>> callables;

    /** Starts the pool. */
    @Setup(Level.Trial)
    public void setup() {
        tasks = new ArrayList<>();
        callables = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            tasks.add(isPrime.call(PRIME));
            callables.add(() -> isPrime(PRIME));
        }
        switch (system) {
            case SEQUENTIAL -> { }
            case Dispatcher.MOROUTINE -> pool = workers(CPUS);
            case Dispatcher.FORK_JOIN_POOL -> forkJoinPool = new ForkJoinPool(CPUS);
            default -> throw new IllegalArgumentException("unknown system \"" + system + "\"");
        }
    }

    /**
     * Tests {@link #PRIME} {@link #TASKS} times.
     *
     * @return how many of the tests said prime, {@link #TASKS}
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
            for (int i = 0; i < TASKS; i++) {
                primes += isPrime(PRIME) ? 1 : 0;
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
