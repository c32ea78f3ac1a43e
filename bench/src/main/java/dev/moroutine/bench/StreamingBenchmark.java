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
 * The streaming shapes: {@link #ITEMS} items between the caller and a worker thread, in each
 * {@link Direction}. One operation is one item, so the score is items per second. Each invocation
 * starts a new stream, so its start-up cost is included, spread over the items. See
 * {@link Transport} for how each system does it.
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=StreamingBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StreamingBenchmark {

    /** Items per invocation. */
    public static final int ITEMS = 20_000;

    /** Which way the items go: one shape each. */
    public enum Direction {
        /** Stream worker→caller: a producer on a worker emits the items, the caller consumes them. */
        WORKER_TO_CALLER {
            @Override
            long move(Transport transport, List<Integer> items) throws Exception {
                return transport.workerToCaller(items);
            }
        },
        /** Channel caller→worker: the caller's items are consumed by a task on a worker, which returns their sum. */
        CALLER_TO_WORKER {
            @Override
            long move(Transport transport, List<Integer> items) throws Exception {
                return transport.callerToWorker(items);
            }
        },
        /** Round trip caller→worker→caller: the caller's items go to a worker that adds one to each and sends them back. */
        ROUND_TRIP {
            @Override
            long move(Transport transport, List<Integer> items) throws Exception {
                return transport.roundTrip(items);
            }

            @Override
            long expected() {
                return super.expected() + ITEMS;
            }
        };

        abstract long move(Transport transport, List<Integer> items) throws Exception;

        /** The sum that {@link #move} returns when every item arrived. */
        long expected() {
            return Items.expectedSum(ITEMS);
        }
    }

    /** The shape; every {@link Direction} unless JMH is told otherwise. */
    @Param
    public Direction direction;

    /** The system under test; see {@link Transport}. */
    @Param({
        Transport.MOROUTINE,
        Transport.MOROUTINE_16,
        Transport.ARRAY_BLOCKING_QUEUE,
        Transport.SUBMISSION_PUBLISHER,
        Transport.SPSC,
        ProcessPeers.ISOLATED,
        ProcessPeers.ISOLATED_1024,
        ProcessPeers.PIPE
    })
    public String system;

    private Transport transport;
    private List<Integer> items;

    /**
     * Starts the system (a worker JVM is warmed up: see {@link ProcessPeers#warmUp}).
     *
     * @throws Exception if a warm-up stream failed
     */
    @Setup(Level.Trial)
    public void setup() throws Exception {
        transport = Transport.create(system);
        items = Items.boxed(ITEMS);
        ProcessPeers.warmUp(system, this::streaming);
    }

    /**
     * Moves {@link #ITEMS} items in the {@link #direction}.
     *
     * @return the sum of what arrived, for JMH to consume
     * @throws Exception if the hand-off failed
     */
    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public long streaming() throws Exception {
        return direction.move(transport, items);
    }

    /**
     * What {@link #streaming} returns when every item arrived.
     *
     * @return the expected sum
     */
    public long expected() {
        return direction.expected();
    }

    /** Stops the system. */
    @TearDown(Level.Trial)
    public void tearDown() {
        transport.close();
    }
}
