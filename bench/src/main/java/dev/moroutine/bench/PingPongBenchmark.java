package dev.moroutine.bench;

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
 * Ping-pong latency: one worker thread, one noop task at a time; submit it, wait for its result,
 * repeat. JMH times a sample of the round trips one by one, so the percentiles (in µs) show what a
 * caller waits for a task on a worker that has nothing else to do.
 *
 * <p>moroutine is measured twice: a one-worker pool ({@code pool.run(noop.call())}) and the
 * moroutine's dedicated worker ({@code noop.call().join()}). The JDK executors wait with
 * {@code future.get()}/{@code join()}.
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=PingPong
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PingPongBenchmark {

    /** The system under test; see {@link Dispatcher}. */
    @Param({
        Dispatcher.MOROUTINE,
        Dispatcher.MOROUTINE_DEDICATED,
        Dispatcher.THREAD_POOL_EXECUTOR,
        Dispatcher.FORK_JOIN_POOL,
        Dispatcher.COMPLETABLE_FUTURE,
        Dispatcher.VIRTUAL_THREADS,
        ProcessPeers.ISOLATED,
        ProcessPeers.PIPE
    })
    public String system;

    private Dispatcher dispatcher;

    /**
     * Starts the system with one worker thread (a worker JVM is warmed up: see {@link ProcessPeers#warmUp}).
     *
     * @throws Exception if a warm-up task failed
     */
    @Setup(Level.Trial)
    public void setup() throws Exception {
        dispatcher = Dispatcher.create(system, 1);
        ProcessPeers.warmUp(system, this::pingPong);
    }

    /**
     * One round trip.
     *
     * @return the task's result, for JMH to consume
     * @throws Exception if the task failed
     */
    @Benchmark
    public Integer pingPong() throws Exception {
        return dispatcher.call();
    }

    /** Stops the system. */
    @TearDown(Level.Trial)
    public void tearDown() {
        dispatcher.close();
    }
}
