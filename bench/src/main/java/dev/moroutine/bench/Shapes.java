package dev.moroutine.bench;

import dev.moroutine.bench.ResultsTable.Kind;
import dev.moroutine.bench.ResultsTable.Shape;
import java.util.List;

/** The shapes of the comparison: one table each, in this order. */
public final class Shapes {

    private Shapes() {}

    /** One task at a time. */
    public static final Shape PING_PONG = new Shape(0, "ping-pong",
            "Ping-pong latency: 1 worker, one noop task at a time", Kind.LATENCY, "µs per round trip");
    /** 64 tasks in flight. */
    public static final Shape PIPELINED_64 = pipelined(64);
    /** 1024 tasks in flight. */
    public static final Shape PIPELINED_1024 = pipelined(1024);
    /** Two workers, batches of tasks. */
    public static final Shape PARALLEL = new Shape(3, "parallel", "Parallel throughput: " + ParallelBenchmark.WORKERS
            + " workers, batches of " + thousands(ParallelBenchmark.TASKS) + " noop tasks", Kind.THROUGHPUT, "M tasks/s");
    /** A producer on a worker, the caller consumes. */
    public static final Shape STREAM = new Shape(10, "stream", "Stream worker→caller: "
            + thousands(StreamingBenchmark.ITEMS) + " items per stream", Kind.THROUGHPUT, "M items/s");
    /** The caller's items to a consumer on a worker. */
    public static final Shape CHANNEL = new Shape(11, "channel", "Channel caller→worker: "
            + thousands(StreamingBenchmark.ITEMS) + " items per channel", Kind.THROUGHPUT, "M items/s");
    /** There and back. */
    public static final Shape ROUND_TRIP = new Shape(12, "round-trip", "Round trip caller→worker→caller (the worker adds 1): "
            + thousands(StreamingBenchmark.ITEMS) + " items", Kind.THROUGHPUT, "M items/s");
    /** Cluster members (in one JVM) as workers, many noop tasks in flight. */
    public static final Shape CLUSTER_PIPELINED = new Shape(50, "cluster-pipelined", "Cluster pipelined: 3 Hazelcast members"
            + " in one JVM, " + ClusterBench.IN_FLIGHT + " noop tasks in flight", Kind.THROUGHPUT, "M tasks/s");
    /** A stream from another member. */
    public static final Shape CLUSTER_STREAM = new Shape(51, "cluster-stream", "Cluster stream member→caller: "
            + thousands(ClusterBench.ITEMS) + " items, highWaterMark " + ClusterBench.CHUNK, Kind.THROUGHPUT, "M items/s");
    /** The fan-out consumer counts. */
    public static final List<Integer> FAN_OUT_CONSUMERS = List.of(1, 2, 4, 8);
    /** One batch argument. */
    public static final Shape BATCH = batch(20, BatchBenchmark.BATCH, "one batch argument");
    /** One task per item. */
    public static final Shape PER_TASK = batch(21, BatchBenchmark.PER_TASK, "one task each");
    /** One stream. */
    public static final Shape BATCH_STREAM = batch(22, BatchBenchmark.STREAM, "one stream");
    /** isPrime × 2 per CPU. */
    public static final Shape CPU = new Shape(30, "cpu", "CPU-bound: isPrime(999,999,937) × " + CpuBoundBenchmark.TASKS
            + " (2 per CPU), sequential vs " + CpuBoundBenchmark.CPUS + " workers", Kind.TIME, "ms per batch");
    /** isPrime of mixed cost, many more tests than workers. */
    public static final Shape CPU_MIXED = new Shape(31, "cpu-mixed", "CPU-bound: " + CpuBoundBenchmark.MIXED_TASKS
            + " isPrime tests of mixed cost (primes near 10^6 to 10^9), sequential vs " + CpuBoundBenchmark.CPUS + " workers",
            Kind.TIME, "ms per batch");
    /** Mutex vs locks, one thread. */
    public static final Shape LOCK = new Shape(40, "lock", "Lock/unlock, 1 thread", Kind.NANOS, "ns per lock/unlock");
    /** Mutex vs locks, two threads. */
    public static final Shape LOCK_CONTENDED = new Shape(41, "lock-contended", "Lock/unlock, 2 threads contending",
            Kind.NANOS, "ns per lock/unlock");
    /** 32-bit atomic add. */
    public static final Shape ADD_32 = new Shape(42, "add-32", "Atomic add (32-bit), 1 thread", Kind.NANOS, "ns per add");
    /** 64-bit atomic add. */
    public static final Shape ADD_64 = new Shape(43, "add-64", "Atomic add (64-bit), 1 thread", Kind.NANOS, "ns per add");
    /** 32-bit atomic add, contended. */
    public static final Shape ADD_32_CONTENDED = new Shape(44, "add-32-contended", "Atomic add (32-bit), 2 threads contending",
            Kind.NANOS, "ns per add");
    /** Struct load. */
    public static final Shape STRUCT_LOAD = new Shape(45, "struct-load", "Two-field struct load", Kind.NANOS, "ns per load");
    /** Struct store. */
    public static final Shape STRUCT_STORE = new Shape(46, "struct-store", "Two-field struct store", Kind.NANOS, "ns per store");

    /**
     * The fan-out shape for a consumer count.
     *
     * @param consumers 1, 2, 4 or 8
     * @return its shape
     */
    public static Shape fanOut(int consumers) {
        return new Shape(13 + FAN_OUT_CONSUMERS.indexOf(consumers), "fan-out-" + consumers, "Fan-out to " + consumers
                + (consumers == 1 ? " consumer: " : " consumers: ") + thousands(FanOutBenchmark.ITEMS) + " items",
                Kind.THROUGHPUT, "M items/s");
    }

    private static Shape pipelined(int inFlight) {
        return new Shape(inFlight == 64 ? 1 : 2, "pipelined-" + inFlight, "Pipelined throughput: 1 worker, " + inFlight
                + " noop tasks in flight", Kind.THROUGHPUT, "M tasks/s");
    }

    private static Shape batch(int order, String way, String how) {
        return new Shape(order, "items-" + way, thousands(BatchBenchmark.ITEMS) + " items to 1 worker, " + how,
                Kind.THROUGHPUT, "M items/s");
    }

    /**
     * A number with thousands separators.
     *
     * @param n the number
     * @return e.g. {@code 100,000}
     */
    static String thousands(long n) {
        return String.format(java.util.Locale.ROOT, "%,d", n);
    }
}
