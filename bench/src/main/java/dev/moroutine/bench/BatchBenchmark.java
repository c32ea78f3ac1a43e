package dev.moroutine.bench;

import static dev.moroutine.Moroutine.workers;
import static dev.moroutine.stream.Streaming.channel;

import dev.moroutine.Pool;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ForkJoinPool;
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

/**
 * {@value #ITEMS} items to one worker, three ways, and the worker sums them: as one batch argument,
 * as one task each, or as one stream. One operation is one item, so the score is items per second.
 *
 * <ul>
 *   <li>{@code batch}: moroutine {@code pool.run(sum.call(items))} (the list is passed by reference,
 *       as any Java object is: nothing is copied); ForkJoinPool {@code submit(() -> sum(items)).get()}.</li>
 *   <li>{@code per-task}: every item its own task ({@code echo.call(item)}, {@code submit(() -> item)}),
 *       all submitted, then all awaited and summed by the caller.</li>
 *   <li>{@code stream}: moroutine {@code pool.run(sum.call(channel(items)))}, piped with
 *       backpressure; ForkJoinPool runs a task that takes from an {@code ArrayBlockingQueue(16)} the
 *       caller fills.</li>
 * </ul>
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=Batch
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BatchBenchmark {

    /** Items per invocation. */
    public static final int ITEMS = 100_000;

    /** One batch argument. */
    public static final String BATCH = "batch";
    /** One task per item. */
    public static final String PER_TASK = "per-task";
    /** One stream. */
    public static final String STREAM = "stream";

    /** The system under test: {@code moroutine} ({@code workers(1)}) or {@code ForkJoinPool} ({@code new ForkJoinPool(1)}). */
    @Param({Dispatcher.MOROUTINE, Dispatcher.FORK_JOIN_POOL})
    public String system;

    /** How the items travel. */
    @Param({BATCH, PER_TASK, STREAM})
    public String way;

    private List<Integer> items;
    private Pool pool;
    private ForkJoinPool forkJoinPool;
    private Future<?>[] futures;
    private BlockingQueue<Integer> queue;

    /** Starts the worker. */
    @Setup(Level.Trial)
    public void setup() {
        if (!List.of(BATCH, PER_TASK, STREAM).contains(way)) {
            throw new IllegalArgumentException("unknown way \"" + way + "\"");
        }
        items = Items.boxed(ITEMS);
        futures = new Future<?>[ITEMS];
        queue = new ArrayBlockingQueue<>(Transport.CAPACITY);
        switch (system) {
            case Dispatcher.MOROUTINE -> pool = workers(1);
            case Dispatcher.FORK_JOIN_POOL -> forkJoinPool = new ForkJoinPool(1);
            default -> throw new IllegalArgumentException("unknown system \"" + system + "\"");
        }
    }

    /**
     * Moves {@link #ITEMS} items to the worker and sums them there (or, per task, on the caller).
     *
     * @return the sum
     * @throws Exception if a task failed
     */
    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public long items() throws Exception {
        return pool != null ? moroutine() : forkJoinPool();
    }

    private long moroutine() throws Exception {
        return switch (way) {
            case BATCH -> pool.run(Items.sum.call(items));
            case PER_TASK -> {
                for (int i = 0; i < ITEMS; i++) {
                    futures[i] = pool.submit(Items.echo.call(items.get(i)));
                }
                yield awaitAll();
            }
            default -> pool.run(Items.sum.call(channel(items)));
        };
    }

    private long forkJoinPool() throws Exception {
        switch (way) {
            case BATCH -> {
                return forkJoinPool.submit(() -> Items.sumOf(items)).get();
            }
            case PER_TASK -> {
                for (int i = 0; i < ITEMS; i++) {
                    Integer item = items.get(i);
                    futures[i] = forkJoinPool.submit(() -> item);
                }
                return awaitAll();
            }
            default -> {
                Future<Long> consumer = forkJoinPool.submit(() -> {
                    long sum = 0;
                    for (Integer item = queue.take(); item != Items.END; item = queue.take()) {
                        sum += item;
                    }
                    return sum;
                });
                for (Integer item : items) {
                    queue.put(item);
                }
                queue.put(Items.END);
                return consumer.get();
            }
        }
    }

    private long awaitAll() throws Exception {
        long sum = 0;
        for (int i = 0; i < ITEMS; i++) {
            sum += (Integer) futures[i].get();
            futures[i] = null;
        }
        return sum;
    }

    /** Stops the worker. */
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
