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
 * Pipelined throughput: one worker thread, {@code inFlight} noop tasks outstanding. The caller keeps
 * a ring of futures: it waits for the oldest, puts a new task in its slot, moves on. One operation
 * is one task (submitted, run, and its result awaited), so the score is tasks per second.
 *
 * <p>The ring lives across invocations, so the pipeline stays full; it is drained after each
 * iteration. The waits use the futures' own {@code get()}: for moroutine that is
 * {@code CompletableFuture.get()}, which parks at once when the result is not there yet.
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=Pipelined
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PipelinedBenchmark {

    /** Tasks per benchmark invocation. */
    public static final int BATCH = 4096;

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

    /** Tasks outstanding at once; a power of two. */
    @Param({"64", "1024"})
    public int inFlight;

    private Dispatcher dispatcher;
    private Future<?>[] ring;
    private int next;

    /**
     * Starts the system with one worker thread (a worker JVM is warmed up: see {@link ProcessPeers#warmUp}).
     *
     * @param bh consumes the results of the warm-up
     * @throws Exception if a warm-up task failed
     */
    @Setup(Level.Trial)
    public void setup(Blackhole bh) throws Exception {
        if (Integer.bitCount(inFlight) != 1) {
            throw new IllegalArgumentException("inFlight must be a power of two, was " + inFlight);
        }
        dispatcher = Dispatcher.create(system, 1);
        ring = new Future<?>[inFlight];
        next = 0;
        ProcessPeers.warmUp(system, () -> {
            pipelined(bh);
            return null;
        });
        drain();
    }

    /**
     * Pushes {@link #BATCH} tasks through the ring.
     *
     * @param bh consumes the results
     * @throws Exception if a task failed
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void pipelined(Blackhole bh) throws Exception {
        Future<?>[] slots = ring;
        int mask = slots.length - 1;
        int i = next;
        for (int n = 0; n < BATCH; n++) {
            Future<?> oldest = slots[i];
            if (oldest != null) {
                bh.consume(oldest.get());
            }
            slots[i] = dispatcher.submit();
            i = (i + 1) & mask;
        }
        next = i;
    }

    /**
     * Waits for the tasks still in the ring, so that none is left behind when an iteration ends.
     *
     * @throws Exception if a task failed
     */
    @TearDown(Level.Iteration)
    public void drain() throws Exception {
        for (int i = 0; i < ring.length; i++) {
            if (ring[i] != null) {
                ring[i].get();
                ring[i] = null;
            }
        }
        next = 0;
    }

    /** Stops the system. */
    @TearDown(Level.Trial)
    public void tearDown() {
        dispatcher.close();
    }
}
