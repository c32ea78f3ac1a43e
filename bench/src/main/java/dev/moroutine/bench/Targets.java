package dev.moroutine.bench;

import dev.moroutine.bench.ResultsTable.Row;
import dev.moroutine.bench.ResultsTable.Shape;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The speed targets that the issues set, checked against a run's rows: measured and reported,
 * never asserted (a benchmark on a shared two-core machine is no test).
 */
public final class Targets {

    /**
     * One target and what the run measured.
     *
     * @param issue where it was set
     * @param goal what it asks
     * @param measured the figure, or "not measured"
     * @param met whether it was met; empty when not measured
     */
    public record Target(String issue, String goal, String measured, Optional<Boolean> met) {}

    /** The streaming shapes' peer, as its rows are named. */
    private static final String SUBMISSION_PUBLISHER = "SubmissionPublisher (buffer 256)";

    private Targets() {}

    /**
     * Checks every target.
     *
     * @param rows the run's rows
     * @param took how long the run took
     * @param quickAndComplete whether this was a quick run of everything (the time target applies)
     * @return the targets, in issue order
     */
    public static List<Target> evaluate(List<Row> rows, Duration took, boolean quickAndComplete) {
        List<Target> targets = new ArrayList<>();
        Optional<Double> pingPong = median(rows, Shapes.PING_PONG, Dispatcher.MOROUTINE);
        Optional<Double> pingPongDedicated = median(rows, Shapes.PING_PONG, Dispatcher.MOROUTINE_DEDICATED);
        targets.add(atMost("2 (core)", "ping-pong median ≤ 1 µs", pingPong, 1,
                v -> num(v) + " µs (pool)" + pingPongDedicated.map(d -> ", " + num(d) + " µs (dedicated)").orElse("")));
        Optional<Double> pipelined = median(rows, Shapes.PIPELINED_64, Dispatcher.MOROUTINE);
        Optional<Double> pipelinedDedicated = median(rows, Shapes.PIPELINED_64, Dispatcher.MOROUTINE_DEDICATED);
        targets.add(atLeast("2 (core)", "pipelined (1 worker, 64 in flight) ≥ 5 M tasks/s", pipelined, 5,
                v -> num(v) + " M tasks/s (pool)" + pipelinedDedicated.map(d -> ", " + num(d) + " (dedicated)").orElse("")));
        Optional<Double> parallel = median(rows, Shapes.PARALLEL, Dispatcher.MOROUTINE);
        Optional<Double> parallelFjp = median(rows, Shapes.PARALLEL, Dispatcher.FORK_JOIN_POOL);
        targets.add(atLeast("2 (core)", "parallel (2 workers) ≥ ForkJoinPool's rate", ratio(parallel, parallelFjp), 1,
                v -> num(parallel.orElseThrow()) + " vs " + num(parallelFjp.orElseThrow()) + " M tasks/s = " + num(v) + "×"));
        Optional<Double> mutex = median(rows, Shapes.LOCK, "moroutine Mutex");
        Optional<Double> reentrant = median(rows, Shapes.LOCK, "ReentrantLock");
        targets.add(atMost("3 (shared memory)", "uncontended Mutex lock/unlock ≤ 1.5× ReentrantLock's time",
                ratio(mutex, reentrant), 1.5,
                v -> num(mutex.orElseThrow()) + " vs " + num(reentrant.orElseThrow()) + " ns = " + num(v) + "×"));
        Optional<Double> add = median(rows, Shapes.ADD_32, "moroutine Int32Atomic.add");
        Optional<Double> atomicInteger = median(rows, Shapes.ADD_32, "AtomicInteger.getAndAdd");
        targets.add(atMost("3 (shared memory)", "atomic add ≤ 1.2× AtomicInteger's time", ratio(add, atomicInteger), 1.2,
                v -> num(add.orElseThrow()) + " vs " + num(atomicInteger.orElseThrow()) + " ns = " + num(v) + "×"));
        Optional<Double> stream = median(rows, Shapes.STREAM, Transport.MOROUTINE_16);
        targets.add(atLeast("4 (streaming)", "stream worker→caller ≥ 10 M items/s (highWaterMark 16)", stream, 10,
                v -> num(v) + " M items/s"));
        List<Double> fanOut = Shapes.FAN_OUT_CONSUMERS.stream()
                .map(k -> median(rows, Shapes.fanOut(k), Dispatcher.MOROUTINE))
                .flatMap(Optional::stream)
                .toList();
        Optional<Double> eight = median(rows, Shapes.fanOut(8), Dispatcher.MOROUTINE);
        double bestFanOut = fanOut.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        targets.add(atLeast("4 (streaming)", "fan-out at 8 consumers ≥ 90% of the best consumer count",
                fanOut.size() == Shapes.FAN_OUT_CONSUMERS.size() ? eight.map(e -> e / bestFanOut) : Optional.empty(), 0.9,
                v -> num(eight.orElseThrow()) + " vs best " + num(bestFanOut) + " M items/s = "
                        + String.format(java.util.Locale.ROOT, "%.0f%%", 100 * v)));
        for (Shape shape : List.of(Shapes.PARALLEL, Shapes.PER_TASK, Shapes.PIPELINED_64, Shapes.PIPELINED_1024)) {
            targets.add(versus(rows, shape, Dispatcher.FORK_JOIN_POOL, 1.0));
        }
        targets.add(versus(rows, Shapes.CPU, Dispatcher.FORK_JOIN_POOL, 1.0));
        targets.add(versus(rows, Shapes.CPU_MIXED, Dispatcher.FORK_JOIN_POOL, 1.0));
        targets.add(versus(rows, Shapes.STREAM, SUBMISSION_PUBLISHER, 1.5));
        targets.add(versus(rows, Shapes.CHANNEL, SUBMISSION_PUBLISHER, 1.5));
        targets.add(versus(rows, Shapes.ROUND_TRIP, SUBMISSION_PUBLISHER, 0.5));
        targets.add(versus(rows, Shapes.PING_PONG, Dispatcher.FORK_JOIN_POOL, 10));
        targets.add(versus(rows, Shapes.STRUCT_LOAD, "record from a volatile field", 0.5));
        targets.add(versus(rows, Shapes.STRUCT_STORE, "new record to a volatile field", 0.5));
        Optional<Double> isolatedPingPong = median(rows, Shapes.PING_PONG, ProcessPeers.ISOLATED);
        targets.add(atMost("11 (worker JVMs)", "isolated ping-pong median ≤ 5 µs", isolatedPingPong, 5, v -> num(v) + " µs"));
        Optional<Double> isolatedPipelined = median(rows, Shapes.PIPELINED_64, ProcessPeers.ISOLATED);
        targets.add(atLeast("11 (worker JVMs)", "isolated pipelined (64 in flight) ≥ 1 M noop tasks/s", isolatedPipelined, 1,
                v -> num(v) + " M tasks/s"));
        Optional<Double> isolatedStream = median(rows, Shapes.STREAM, ProcessPeers.ISOLATED_1024);
        Optional<Double> isolatedStreamDefault = median(rows, Shapes.STREAM, ProcessPeers.ISOLATED);
        targets.add(atLeast("11 (worker JVMs)", "stream worker JVM→caller ≥ 5 M items/s (highWaterMark 1024)", isolatedStream, 5,
                v -> num(v) + " M items/s" + isolatedStreamDefault.map(d -> ", " + num(d) + " at the default (256)").orElse("")));
        targets.add(cluster(rows, Shapes.CLUSTER_PIPELINED, "pipelined noop"));
        targets.add(cluster(rows, Shapes.CLUSTER_STREAM, "stream member→caller"));
        targets.add(atMost("5 (benchmarks)", "the whole quick comparison < 5 minutes",
                quickAndComplete ? Optional.of(took.toMillis() / 60_000.0) : Optional.empty(), 5,
                v -> took.toMinutes() + " min " + took.toSecondsPart() + " s"));
        return targets;
    }

    /**
     * Issue 14's targets under load, from a run that measured every benchmark twice: the stream
     * worker→caller at least level with {@code SubmissionPublisher} under the same load, and no shape
     * keeping less of its quiet figure than its best peer keeps of its own.
     *
     * @param quiet the rows of the quiet pass
     * @param busy the rows of the same benchmarks under load
     * @param condition what the load was (e.g. "1 core kept busy by another process")
     * @return the two targets
     */
    public static List<Target> underLoad(List<Row> quiet, List<Row> busy, String condition) {
        String issue = "14 (speed, " + condition + ")";
        List<ResultsTable.LoadShare> shares = ResultsTable.loadShares(quiet, busy);
        long keeping = shares.stream().filter(share -> share.keepsPeerShare().orElse(false)).count();
        long judged = shares.stream().filter(share -> share.keepsPeerShare().isPresent()).count();
        return List.of(
                versus(issue, busy, Shapes.STREAM, SUBMISSION_PUBLISHER, 1.0),
                atLeast(issue, "every shape keeps at least the share of its quiet figure that its best peer keeps",
                        judged == 0 ? Optional.empty() : Optional.of((double) keeping / judged), 1.0,
                        v -> keeping + " of " + judged + " shapes do (the table under load, below)"));
    }

    /**
     * The targets as a Markdown table.
     *
     * @param targets what {@link #evaluate} returned
     * @return the table
     */
    public static String render(List<Target> targets) {
        StringBuilder out = new StringBuilder("| issue | target | measured (median) | |\n|:--|:--|:--|:--|\n");
        for (Target t : targets) {
            out.append("| ").append(t.issue()).append(" | ").append(t.goal()).append(" | ").append(t.measured())
                    .append(" | ").append(t.met().map(met -> met ? "met" : "**missed**").orElse("–")).append(" |\n");
        }
        return out.toString();
    }

    /**
     * Issue 14's kind of target: moroutine at least {@code times} as good as one peer on one shape
     * (for latency and time, the peer's figure over moroutine's; a struct within 2× is 0.5).
     */
    private static Target versus(List<Row> rows, Shape shape, String peer, double times) {
        return versus("14 (speed)", rows, shape, peer, times);
    }

    private static Target versus(String issue, List<Row> rows, Shape shape, String peer, double times) {
        Optional<Row> mine = row(rows, shape, Dispatcher.MOROUTINE);
        Optional<Row> theirs = row(rows, shape, peer);
        String goal = shape.title() + ": moroutine ≥ " + num(times) + "× " + peer;
        return atLeast(issue, goal, mine.flatMap(m -> theirs.map(p -> ResultsTable.ratio(m, p))), times,
                v -> num(mine.orElseThrow().compared()) + " vs " + num(theirs.orElseThrow().compared()) + " = " + num(v) + "×"
                        + passes(mine.orElseThrow(), theirs.orElseThrow()));
    }

    /**
     * Each side's JVMs' core-to-core passes, when both were measured: two JVMs in different states
     * of the machine differ several-fold on a hand-off whatever the code (see {@link CoreToCoreProfiler}).
     */
    private static String passes(Row mine, Row theirs) {
        if (mine.passes().isEmpty() || theirs.passes().isEmpty()) {
            return "";
        }
        return " (core to core per JVM: " + mine.passesShown() + " ns, against " + theirs.passesShown() + ")";
    }

    /** Issue 12's: moroutine's cluster pool within 1.2× of Hazelcast's own executor, that is at least its rate ÷ 1.2. */
    private static Target cluster(List<Row> rows, Shape shape, String what) {
        Optional<Double> mine = median(rows, shape, ClusterResults.MOROUTINE);
        Optional<Double> raw = median(rows, shape, ClusterResults.RAW);
        Optional<Double> wide = ratio(median(rows, shape, ClusterResults.MOROUTINE_WIDE), raw);
        return atLeast("12 (cluster)", what + " within 1.2× of raw IExecutorService (≥ " + num(1 / 1.2) + "× its rate)",
                ratio(mine, raw), 1 / 1.2, v -> num(mine.orElseThrow()) + " vs " + num(raw.orElseThrow()) + " " + shape.unit()
                        + " = " + num(v) + "×" + wide.map(w -> "; " + num(w) + "× at highWaterMark " + 2 * ClusterBench.CHUNK)
                                .orElse(""));
    }

    private static Optional<Row> row(List<Row> rows, Shape shape, String system) {
        String name = system.equals(Dispatcher.MOROUTINE) ? moroutineName(shape) : system;
        return rows.stream().filter(r -> r.shape().equals(shape) && r.system().equals(name) && r.ran()).findFirst();
    }

    /** The struct shapes name moroutine's row after the operation. */
    private static String moroutineName(Shape shape) {
        if (shape.equals(Shapes.STRUCT_LOAD)) {
            return "moroutine Struct.load";
        }
        return shape.equals(Shapes.STRUCT_STORE) ? "moroutine Struct.store" : Dispatcher.MOROUTINE;
    }

    private static Optional<Double> median(List<Row> rows, Shape shape, String system) {
        return rows.stream()
                .filter(r -> r.shape().equals(shape) && r.system().equals(system) && r.ran())
                .map(Row::median)
                .findFirst();
    }

    private static Optional<Double> ratio(Optional<Double> a, Optional<Double> b) {
        return a.flatMap(x -> b.map(y -> x / y));
    }

    private static Target atMost(String issue, String goal, Optional<Double> value, double limit,
            java.util.function.Function<Double, String> show) {
        return value.map(v -> new Target(issue, goal, show.apply(v), Optional.of(v <= limit)))
                .orElse(new Target(issue, goal, "not measured in this run", Optional.empty()));
    }

    private static Target atLeast(String issue, String goal, Optional<Double> value, double limit,
            java.util.function.Function<Double, String> show) {
        return value.map(v -> new Target(issue, goal, show.apply(v), Optional.of(v >= limit)))
                .orElse(new Target(issue, goal, "not measured in this run", Optional.empty()));
    }

    private static String num(double v) {
        return ResultsTable.num(v);
    }
}
