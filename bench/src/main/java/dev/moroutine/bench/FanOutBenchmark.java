package dev.moroutine.bench;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.workers;
import static dev.moroutine.stream.Streaming.channel;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * Fan-out: the caller's {@link #ITEMS} items shared among {@code consumers} consumers, each item to
 * exactly one, each consumer on its own worker thread counting what it gets. One operation is one
 * item, so the score is items per second; the share of the items that each consumer got is
 * recorded too (the lowest and the highest share over the invocations of an iteration, as
 * {@value #MIN_SHARE} and {@value #MAX_SHARE}, in percent).
 *
 * <p>Every system holds back the first item until every consumer has started
 * ({@link Items#afterConsumers}), so that the shares show how the items are dealt, not in which order
 * the consumers' threads happened to wake. For moroutine this also matters for correctness: a
 * consumer attaches to the channel when its task starts on its worker, and the first ones may
 * drain the source before it, so a consumer whose task starts after the others drained the source fails
 * with "has ended" (with 2,000 items and 8 consumers on 2 cores, about half of them do).
 *
 * <ul>
 *   <li>{@code moroutine}: a {@code workers(consumers)} pool; a new {@code channel(items)} per
 *       invocation is passed to {@link Items#count}, one call assigned to each worker,
 *       {@code pool.runAll(…)}. Each consumer has its own high-water mark (the default, 256).</li>
 *   <li>{@code ArrayBlockingQueue}: one shared {@code ArrayBlockingQueue(16)}, the caller
 *       {@code put}s, {@code consumers} threads of a fixed pool {@code take}.</li>
 * </ul>
 *
 * <p>Run (from the repository root; writes {@code bench/results/RESULTS.md}):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=FanOut
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FanOutBenchmark {

    /** Items per invocation. */
    public static final int ITEMS = 20_000;
    /** The label of the lowest share of one consumer, in percent of the items. */
    public static final String MIN_SHARE = "share.min";
    /** The label of the highest share of one consumer, in percent of the items. */
    public static final String MAX_SHARE = "share.max";

    /** The system under test. */
    @Param({Transport.MOROUTINE, Transport.ARRAY_BLOCKING_QUEUE})
    public String system;

    /** How many consumers share the items. */
    @Param({"1", "2", "4", "8"})
    public int consumers;

    private List<Integer> items;
    private Pool pool;
    private ExecutorService threads;
    private BlockingQueue<Integer> queue;
    private double minShare;
    private double maxShare;

    /** Starts the consumers' threads. */
    @Setup(Level.Trial)
    public void setup() {
        items = Items.boxed(ITEMS);
        switch (system) {
            case Transport.MOROUTINE -> pool = workers(consumers);
            case Transport.ARRAY_BLOCKING_QUEUE -> {
                threads = Executors.newFixedThreadPool(consumers);
                queue = new ArrayBlockingQueue<>(Transport.CAPACITY);
            }
            default -> throw new IllegalArgumentException("unknown system \"" + system + "\"");
        }
    }

    /** Starts an iteration's share figures afresh. */
    @Setup(Level.Iteration)
    public void startShares() {
        minShare = 100;
        maxShare = 0;
    }

    /**
     * Shares {@link #ITEMS} items among the consumers.
     *
     * @return how many items the consumers got together, {@link #ITEMS}
     * @throws Exception if a consumer failed
     */
    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public int fanOut() throws Exception {
        int[] counts = pool != null ? channelFanOut() : queueFanOut();
        int total = 0;
        for (int count : counts) {
            total += count;
        }
        for (int count : counts) {
            double share = 100.0 * count / total;
            minShare = Math.min(minShare, share);
            maxShare = Math.max(maxShare, share);
        }
        return total;
    }

    private int[] channelFanOut() {
        CountDownLatch started = new CountDownLatch(consumers);
        Channel<Integer> channel = channel(Items.afterConsumers(items, started));
        List<Task<Integer>> tasks = new ArrayList<>(consumers);
        for (WorkerHandle worker : pool.workers()) {
            tasks.add(assign(worker, Items.count.call(channel, started)));
        }
        return pool.runAll(tasks).stream().mapToInt(Integer::intValue).toArray();
    }

    private int[] queueFanOut() throws Exception {
        CountDownLatch started = new CountDownLatch(consumers);
        List<Future<Integer>> futures = new ArrayList<>(consumers);
        for (int i = 0; i < consumers; i++) {
            futures.add(threads.submit(() -> {
                started.countDown();
                int n = 0;
                while (queue.take() != Items.END) {
                    n++;
                }
                return n;
            }));
        }
        for (Integer item : Items.afterConsumers(items, started)) {
            queue.put(item);
        }
        for (int i = 0; i < consumers; i++) {
            queue.put(Items.END);
        }
        int[] counts = new int[consumers];
        for (int i = 0; i < consumers; i++) {
            counts[i] = futures.get(i).get();
        }
        return counts;
    }

    /** Hands the iteration's share figures to {@link SideResults}. */
    @TearDown(Level.Iteration)
    public void recordShares() {
        SideResults.put(MIN_SHARE, minShare);
        SideResults.put(MAX_SHARE, maxShare);
    }

    /** Stops the consumers' threads. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (pool != null) {
            pool.close();
        }
        if (threads != null) {
            threads.close();
        }
    }

    /**
     * The lowest share of one consumer since the iteration started, for the smoke test.
     *
     * @return percent of the items
     */
    double minShare() {
        return minShare;
    }

}
