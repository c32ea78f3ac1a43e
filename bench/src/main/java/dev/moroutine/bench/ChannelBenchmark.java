package dev.moroutine.bench;

import java.util.List;
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

/**
 * Channel caller→worker: the caller's {@link #ITEMS} items are consumed by a task on a worker, which returns their sum. One operation is one item, so the score is items per second.
 * Each invocation starts a new stream, so its start-up cost is included, spread over the items.
 * See {@link Transport} for how each system does it.
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=ChannelBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ChannelBenchmark {

    /** Items per invocation. */
    public static final int ITEMS = 20_000;

    /** The system under test; see {@link Transport}. */
    @Param({
        Transport.MOROUTINE,
        Transport.ARRAY_BLOCKING_QUEUE,
        Transport.SUBMISSION_PUBLISHER,
        Transport.SPSC
    })
    public String system;

    private Transport transport;
    private List<Integer> items;

    /** Starts the system. */
    @Setup(Level.Trial)
    public void setup() {
        transport = Transport.create(system);
        items = Items.boxed(ITEMS);
    }

    /**
     * Moves {@link #ITEMS} items.
     *
     * @return the sum of what arrived, for JMH to consume
     * @throws Exception if the hand-off failed
     */
    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public long channel() throws Exception {
        return transport.callerToWorker(items);
    }

    /**
     * What {@link #channel} returns when every item arrived.
     *
     * @return the expected sum
     */
    public static long expected() {
        return Items.expectedSum(ITEMS);
    }

    /** Stops the system. */
    @TearDown(Level.Trial)
    public void tearDown() {
        transport.close();
    }
}
