package dev.moroutine.bench;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Parallel throughput: two worker threads; each invocation submits a batch of {@link #TASKS} noop
 * tasks without waiting, then waits for all of them. One operation is one task, so the score is
 * tasks per second. moroutine balances round-robin (the default); the JDK pools use their own queues.
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=Parallel
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ParallelBenchmark {

    /** Tasks per invocation. */
    public static final int TASKS = 100_000;

    /** Worker threads of every pool. */
    public static final int WORKERS = 2;

    /** The system under test; see {@link Dispatcher}. The dedicated worker has one thread, so it is left out. */
    @Param({
        Dispatcher.MOROUTINE,
        Dispatcher.THREAD_POOL_EXECUTOR,
        Dispatcher.FORK_JOIN_POOL,
        Dispatcher.COMPLETABLE_FUTURE,
        Dispatcher.VIRTUAL_THREADS,
        ProcessPeers.ISOLATED,
        ProcessPeers.PIPE
    })
    public String system;

    private Dispatcher dispatcher;
    private Future<?>[] futures;

    /**
     * Starts the system with {@link #WORKERS} worker threads (worker JVMs are warmed up: see {@link ProcessPeers#warmUp}).
     *
     * @param bh consumes the results of the warm-up
     * @throws Exception if a warm-up task failed
     */
    @Setup(Level.Trial)
    public void setup(Blackhole bh) throws Exception {
        dispatcher = Dispatcher.create(system, WORKERS);
        futures = new Future<?>[TASKS];
        ProcessPeers.warmUp(system, () -> {
            parallel(bh);
            return null;
        });
    }

    /**
     * Submits the batch, then waits for every task of it.
     *
     * @param bh consumes the results
     * @throws Exception if a task failed
     */
    @Benchmark
    @OperationsPerInvocation(TASKS)
    public void parallel(Blackhole bh) throws Exception {
        Future<?>[] batch = futures;
        for (int i = 0; i < batch.length; i++) {
            batch[i] = dispatcher.submit();
        }
        for (int i = 0; i < batch.length; i++) {
            bh.consume(batch[i].get());
            batch[i] = null;
        }
    }

    /** Stops the system. */
    @TearDown(Level.Trial)
    public void tearDown() {
        dispatcher.close();
    }
}
