package dev.moroutine.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.util.Statistics;

/**
 * Turns results into the Markdown of {@code RESULTS.md}: a summary (one line per shape: moroutine,
 * its best peer, the ratio, Piscina and the seed's published figure), and one table per shape with
 * every system's median, its spread and its noise.
 *
 * <p>{@link #rows} reads JMH's {@link RunResult}s; everything else works on plain {@link Row}s (also
 * made by {@link PiscinaResults} and {@link #seedRows}), so the formatting is testable without
 * running JMH.
 */
public final class ResultsTable {

    /** How a shape is scored. */
    public enum Kind {
        /** µs per operation, sampled one by one: the median of all samples; lower is better. */
        LATENCY,
        /** Millions of operations per second: the median of the iterations; higher is better. */
        THROUGHPUT,
        /** Milliseconds per operation, compared through the speed-up over a sequential baseline; higher is better. */
        TIME,
        /** Nanoseconds per operation: the median of the iterations; lower is better. */
        NANOS;

        /** Whether a higher compared value is better. */
        boolean higherIsBetter() {
            return this == THROUGHPUT || this == TIME;
        }
    }

    /** What a row is, for the comparison. */
    public enum Role {
        /** moroutine: compared with the best peer. */
        MOROUTINE,
        /** A peer measured on this machine: a candidate for the best peer. */
        PEER,
        /** What the others are measured against (the sequential run of the CPU-bound shape). */
        BASELINE,
        /** An upper bound rather than a peer (a hand-off that spins and never parks); shown, never compared. */
        BOUND,
        /** A figure measured elsewhere (the seed's); shown, never compared. */
        REFERENCE,
        /**
         * A peer of the worker-JVM rows (a child process fed through a pipe), not of the in-process ones:
         * shown, and compared with {@code moroutine-isolated} by the targets only.
         */
        PROCESS_PEER
    }

    /**
     * One benchmark shape: a table.
     *
     * @param order where the table goes, smallest first
     * @param key a stable name, used by the Node results and the targets
     * @param title the table's heading
     * @param kind how it is scored
     * @param unit the unit of its values
     */
    public record Shape(int order, String key, String title, Kind kind, String unit) {}

    /**
     * One system's result in one shape, in the shape's unit.
     *
     * @param shape the table it belongs to
     * @param system the name shown
     * @param role moroutine, a peer, a baseline or a reference
     * @param median the headline: the median of the iterations, or of all samples for latency; NaN when not run
     * @param low the lowest iteration (its median, for latency)
     * @param high the highest iteration (its median, for latency)
     * @param mean JMH's score (the mean), or NaN
     * @param error the half-width of JMH's 99.9% confidence interval of the mean, or NaN
     * @param p90 the 90th percentile (latency), or NaN
     * @param p99 the 99th percentile (latency), or NaN
     * @param samples samples (latency) or iterations (others)
     * @param otherCpu cores used by other processes or stolen during the measurement, or NaN
     * @param bytesPerOp bytes allocated per operation by all threads, or NaN
     * @param minShare the lowest share of one consumer, in percent (fan-out), or NaN
     * @param maxShare the highest share of one consumer, in percent (fan-out), or NaN
     * @param speedUp the baseline's median over this row's (time shapes), or NaN
     * @param speedUpLow the speed-up of the slowest iteration, or NaN
     * @param speedUpHigh the speed-up of the fastest iteration, or NaN
     * @param perIteration every iteration's value, for the chart
     * @param passes each JVM's core-to-core pass before and after its measurement, in the order of the forks; empty if unknown
     * @param note what to know about the row, or ""
     */
    public record Row(Shape shape, String system, Role role, double median, double low, double high, double mean,
            double error, double p90, double p99, long samples, double otherCpu, double bytesPerOp, double minShare,
            double maxShare, double speedUp, double speedUpLow, double speedUpHigh, List<Double> perIteration,
            List<Pass> passes, String note) {

        /**
         * A row from per-iteration values: their median and range; everything else unknown.
         *
         * @param shape the table
         * @param system the name shown
         * @param role its role
         * @param perIteration the values, at least one
         * @return the row
         */
        public static Row of(Shape shape, String system, Role role, List<Double> perIteration) {
            List<Double> values = List.copyOf(perIteration);
            return new Row(shape, system, role, ResultsTable.median(values), ResultsTable.min(values), ResultsTable.max(values),
                    Double.NaN, Double.NaN, Double.NaN, Double.NaN, values.size(), Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, Double.NaN, values, List.of(), "");
        }

        /**
         * A row for a system that did not run.
         *
         * @param shape the table
         * @param system the name shown
         * @param why the reason, shown as the note
         * @return the row
         */
        public static Row notRun(Shape shape, String system, String why) {
            return new Row(shape, system, Role.PEER, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, List.of(), List.of(), "not run: " + why);
        }

        /**
         * A figure measured elsewhere.
         *
         * @param shape the table
         * @param system the name shown
         * @param value the figure
         * @param note where it comes from
         * @return the row
         */
        public static Row reference(Shape shape, String system, double value, String note) {
            return new Row(shape, system, Role.REFERENCE, value, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, List.of(value), List.of(), note);
        }

        /**
         * With latency percentiles.
         *
         * @param p50 the median of all samples, the new headline
         * @param p90 the 90th percentile
         * @param p99 the 99th percentile
         * @param samples how many samples
         * @return the copy
         */
        public Row withLatency(double p50, double p90, double p99, long samples) {
            return new Row(shape, system, role, p50, low, high, mean, error, p90, p99, samples, otherCpu, bytesPerOp,
                    minShare, maxShare, speedUp, speedUpLow, speedUpHigh, perIteration, passes, note);
        }

        /**
         * With JMH's mean, its error, and the noise figures.
         *
         * @param mean the mean
         * @param error the half-width of the 99.9% confidence interval
         * @param otherCpu cores others used
         * @param bytesPerOp bytes allocated per operation
         * @return the copy
         */
        public Row withJmh(double mean, double error, double otherCpu, double bytesPerOp) {
            return new Row(shape, system, role, median, low, high, mean, error, p90, p99, samples, otherCpu, bytesPerOp,
                    minShare, maxShare, speedUp, speedUpLow, speedUpHigh, perIteration, passes, note);
        }

        /**
         * With the fan-out's shares.
         *
         * @param min the lowest share of a consumer, percent
         * @param max the highest, percent
         * @return the copy
         */
        public Row withShares(double min, double max) {
            return new Row(shape, system, role, median, low, high, mean, error, p90, p99, samples, otherCpu, bytesPerOp,
                    min, max, speedUp, speedUpLow, speedUpHigh, perIteration, passes, note);
        }

        /**
         * With the speed-up over a baseline's median time.
         *
         * @param baseline the baseline's median
         * @return the copy
         */
        public Row withSpeedUp(double baseline) {
            return new Row(shape, system, role, median, low, high, mean, error, p90, p99, samples, otherCpu, bytesPerOp,
                    minShare, maxShare, baseline / median, baseline / high, baseline / low, perIteration, passes, note);
        }

        /**
         * With each JVM's core-to-core pass.
         *
         * @param measured the passes, one per fork
         * @return the copy
         */
        public Row withPasses(List<Pass> measured) {
            return new Row(shape, system, role, median, low, high, mean, error, p90, p99, samples, otherCpu, bytesPerOp,
                    minShare, maxShare, speedUp, speedUpLow, speedUpHigh, perIteration, List.copyOf(measured), note);
        }

        /**
         * With a note.
         *
         * @param text the note
         * @return the copy
         */
        public Row withNote(String text) {
            return new Row(shape, system, role, median, low, high, mean, error, p90, p99, samples, otherCpu, bytesPerOp,
                    minShare, maxShare, speedUp, speedUpLow, speedUpHigh, perIteration, passes, text);
        }

        /** Each JVM's pass as the report shows it, "33, 221, 34→224"; "–" if none was measured. */
        String passesShown() {
            return passes.isEmpty() ? "–" : passes.stream().map(Pass::shown).collect(Collectors.joining(", "));
        }

        /** The value compared between systems: the speed-up for time shapes, else the median. */
        double compared() {
            return shape.kind() == Kind.TIME ? speedUp : median;
        }

        boolean ran() {
            return !Double.isNaN(compared());
        }
    }

    /**
     * One JVM's core-to-core pass ({@link CoreToCoreProfiler}), one way, in ns; NaN where the machine was too busy to measure it.
     *
     * @param before just before the first measurement iteration
     * @param after just after the last
     */
    public record Pass(double before, double after) {

        /** Whether either end was measured. */
        boolean measured() {
            return !Double.isNaN(before) || !Double.isNaN(after);
        }

        /** "33", or "33→221" when the machine changed during the measurement (by more than half), "–" unknown. */
        String shown() {
            if (Double.isNaN(before) || Double.isNaN(after)) {
                return measured() ? String.format(Locale.ROOT, "%.0f", Double.isNaN(before) ? after : before) : "–";
            }
            boolean changed = Math.max(before, after) > 1.5 * Math.min(before, after);
            return changed ? String.format(Locale.ROOT, "%.0f→%.0f", before, after) : String.format(Locale.ROOT, "%.0f", before);
        }
    }

    /** The order of the systems within a table; others follow in the order they came. */
    static final List<String> SYSTEM_ORDER = List.of(
            Dispatcher.MOROUTINE,
            Dispatcher.MOROUTINE_DEDICATED,
            CpuBoundBenchmark.SEQUENTIAL);

    private ResultsTable() {}

    // ------------------------------------------------------------------------------------ reading JMH

    /**
     * Reads JMH's results.
     *
     * @param results what {@code Pool.run()} returned, rounds merged
     * @return one row per benchmark and parameter combination, time shapes with their speed-ups
     */
    public static List<Row> rows(Collection<RunResult> results) {
        List<Row> rows = new ArrayList<>();
        for (RunResult run : results) {
            BenchmarkParams params = run.getParams();
            Placement placement = place(params);
            Shape shape = placement.shape();
            double scale = shape.kind() == Kind.THROUGHPUT ? 1e-6 : 1;
            List<Double> perIteration = new ArrayList<>();
            List<Pass> passes = new ArrayList<>();
            for (BenchmarkResult fork : run.getBenchmarkResults()) {
                passes.add(new Pass(secondary(fork.getSecondaryResults(), CoreToCoreProfiler.BEFORE),
                        secondary(fork.getSecondaryResults(), CoreToCoreProfiler.AFTER)));
                for (IterationResult iteration : fork.getIterationResults()) {
                    Result<?> primary = iteration.getPrimaryResult();
                    double value = shape.kind() == Kind.LATENCY ? primary.getStatistics().getPercentile(50) : primary.getScore();
                    perIteration.add(value * scale);
                }
            }
            Result<?> primary = run.getPrimaryResult();
            Row row = Row.of(shape, placement.system(), placement.role(), perIteration)
                    .withJmh(primary.getScore() * scale, primary.getScoreError() * scale, otherCpu(run),
                            secondary(run, "gc.alloc.rate.norm"))
                    .withPasses(passes.stream().anyMatch(Pass::measured) ? passes : List.of());
            if (shape.kind() == Kind.LATENCY) {
                Statistics all = primary.getStatistics();
                row = row.withLatency(all.getPercentile(50), all.getPercentile(90), all.getPercentile(99), all.getN());
            }
            if (placement.role() == Role.BOUND) {
                row = row.withNote(BOUND_NOTE);
            }
            double minShare = secondary(run, FanOutBenchmark.MIN_SHARE);
            if (!Double.isNaN(minShare)) {
                row = row.withShares(minShare, secondary(run, FanOutBenchmark.MAX_SHARE));
            }
            rows.add(row);
        }
        return withSpeedUps(rows);
    }

    private static double otherCpu(RunResult run) {
        double others = secondary(run, OtherCpuProfiler.OTHERS);
        double steal = secondary(run, OtherCpuProfiler.STEAL);
        return Double.isNaN(others) ? Double.NaN : others + (Double.isNaN(steal) ? 0 : steal);
    }

    private static double secondary(RunResult run, String label) {
        return secondary(run.getSecondaryResults(), label);
    }

    private static double secondary(Map<String, ?> results, String label) {
        return results.get(label) instanceof Result<?> result ? result.getScore() : Double.NaN;
    }

    /**
     * Fills in the speed-ups of time shapes: each row's over the JVM baseline of its shape. Rows that
     * already have one (Piscina's, over Node's own sequential run) keep it.
     *
     * @param rows the rows
     * @return the rows, time rows with their speed-ups
     */
    public static List<Row> withSpeedUps(List<Row> rows) {
        Map<Shape, Double> baselines = new LinkedHashMap<>();
        for (Row r : rows) {
            if (r.role() == Role.BASELINE && r.shape().kind() == Kind.TIME) {
                baselines.put(r.shape(), r.median());
            }
        }
        return rows.stream()
                .map(r -> r.shape().kind() == Kind.TIME && Double.isNaN(r.speedUp()) && baselines.containsKey(r.shape())
                        ? r.withSpeedUp(baselines.get(r.shape())) : r)
                .toList();
    }

    /** Where a JMH result goes: its shape, the system's name and role. */
    record Placement(Shape shape, String system, Role role) {}

    static Placement place(BenchmarkParams params) {
        String benchmark = params.getBenchmark();
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        String system = params.getParam("system");
        Role role = system == null ? Role.PEER
                : system.startsWith(Dispatcher.MOROUTINE) ? Role.MOROUTINE
                : system.equals(Transport.SPSC) ? Role.BOUND
                : system.equals(ProcessPeers.PIPE) ? Role.PROCESS_PEER
                : Role.PEER;
        return switch (method) {
            case "pingPong" -> new Placement(Shapes.PING_PONG, system, role);
            case "pipelined" -> new Placement(Integer.parseInt(params.getParam("inFlight")) == 64
                    ? Shapes.PIPELINED_64 : Shapes.PIPELINED_1024, system, role);
            case "parallel" -> new Placement(Shapes.PARALLEL, system, role);
            case "streaming" -> new Placement(streamingShape(params.getParam("direction")), transport(system), role);
            case "fanOut" -> new Placement(Shapes.fanOut(Integer.parseInt(params.getParam("consumers"))),
                    transport(system), role);
            case "items" -> {
                String way = params.getParam("way");
                Shape shape = switch (way) {
                    case BatchBenchmark.BATCH -> Shapes.BATCH;
                    case BatchBenchmark.PER_TASK -> Shapes.PER_TASK;
                    default -> Shapes.BATCH_STREAM;
                };
                String name = role == Role.PEER && BatchBenchmark.STREAM.equals(way)
                        ? system + " + " + transport(Transport.ARRAY_BLOCKING_QUEUE) : system;
                yield new Placement(shape, name, role);
            }
            case "primes" -> new Placement(CpuBoundBenchmark.MIXED.equals(params.getParam("batch")) ? Shapes.CPU_MIXED : Shapes.CPU,
                    CpuBoundBenchmark.SEQUENTIAL.equals(system) ? CpuBoundBenchmark.SEQUENTIAL : system,
                    CpuBoundBenchmark.SEQUENTIAL.equals(system) ? Role.BASELINE : role);
            default -> sharedMemory(method).orElseGet(() -> other(params));
        };
    }

    /** The table shape of one direction of {@link StreamingBenchmark}. */
    private static Shape streamingShape(String direction) {
        return switch (StreamingBenchmark.Direction.valueOf(direction)) {
            case WORKER_TO_CALLER -> Shapes.STREAM;
            case CALLER_TO_WORKER -> Shapes.CHANNEL;
            case ROUND_TRIP -> Shapes.ROUND_TRIP;
        };
    }

    private static String transport(String system) {
        return switch (system) {
            case Transport.ARRAY_BLOCKING_QUEUE -> "ArrayBlockingQueue(" + Transport.CAPACITY + ")";
            case Transport.SUBMISSION_PUBLISHER -> "SubmissionPublisher (buffer 256)";
            case Transport.SPSC -> "JCTools SpscArrayQueue(" + Transport.CAPACITY + "), spinning";
            default -> system;
        };
    }

    private static Optional<Placement> sharedMemory(String method) {
        Placement p = switch (method) {
            case "mutexUncontended" -> new Placement(Shapes.LOCK, "moroutine Mutex", Role.MOROUTINE);
            case "reentrantLockUncontended" -> new Placement(Shapes.LOCK, "ReentrantLock", Role.PEER);
            case "synchronizedUncontended" -> new Placement(Shapes.LOCK, "synchronized", Role.PEER);
            case "mutexContended" -> new Placement(Shapes.LOCK_CONTENDED, "moroutine Mutex", Role.MOROUTINE);
            case "reentrantLockContended" -> new Placement(Shapes.LOCK_CONTENDED, "ReentrantLock", Role.PEER);
            case "synchronizedContended" -> new Placement(Shapes.LOCK_CONTENDED, "synchronized", Role.PEER);
            case "int32AtomicAdd" -> new Placement(Shapes.ADD_32, "moroutine Int32Atomic.add", Role.MOROUTINE);
            case "atomicIntegerAdd" -> new Placement(Shapes.ADD_32, "AtomicInteger.getAndAdd", Role.PEER);
            case "int64AtomicAdd" -> new Placement(Shapes.ADD_64, "moroutine Int64Atomic.add", Role.MOROUTINE);
            case "atomicLongAdd" -> new Placement(Shapes.ADD_64, "AtomicLong.getAndAdd", Role.PEER);
            case "int32AtomicAddContended" -> new Placement(Shapes.ADD_32_CONTENDED, "moroutine Int32Atomic.add", Role.MOROUTINE);
            case "atomicIntegerAddContended" -> new Placement(Shapes.ADD_32_CONTENDED, "AtomicInteger.getAndAdd", Role.PEER);
            case "structLoad" -> new Placement(Shapes.STRUCT_LOAD, "moroutine Struct.load", Role.MOROUTINE);
            case "recordCopyLoad" -> new Placement(Shapes.STRUCT_LOAD, "record from a volatile field", Role.PEER);
            case "structStore" -> new Placement(Shapes.STRUCT_STORE, "moroutine Struct.store", Role.MOROUTINE);
            case "recordCopyStore" -> new Placement(Shapes.STRUCT_STORE, "new record to a volatile field", Role.PEER);
            default -> null;
        };
        return Optional.ofNullable(p);
    }

    /** A benchmark this class does not know: a table of its own, named after it. */
    private static Placement other(BenchmarkParams params) {
        String benchmark = params.getBenchmark();
        StringBuilder label = new StringBuilder(benchmark.substring(benchmark.lastIndexOf('.') + 1));
        for (String key : params.getParamsKeys()) {
            label.append(' ').append(key).append('=').append(params.getParam(key));
        }
        Kind kind = switch (params.getMode()) {
            case SampleTime, AverageTime, SingleShotTime -> Kind.NANOS;
            default -> Kind.THROUGHPUT;
        };
        Shape shape = new Shape(1_000, "other", "Other benchmarks (" + params.getMode().longLabel() + ")", kind,
                kind == Kind.THROUGHPUT ? "M ops/s" : params.getTimeUnit() + " per op");
        return new Placement(shape, label.toString(), label.toString().startsWith(Dispatcher.MOROUTINE) ? Role.MOROUTINE : Role.PEER);
    }

    // ------------------------------------------------------------------------------------ the seed

    /** The note on an upper-bound row. */
    public static final String BOUND_NOTE = "upper bound, not a peer: both threads spin and never park (two busy cores)";

    /** Where the seed's figures come from. */
    public static final String SEED_SYSTEM = "seed (Node.js moroutine)";
    /** The note on the seed's figures. */
    public static final String SEED_NOTE = "measured on another machine (the seed's M-series Mac, Node 24)";

    /**
     * The seed's own published figures (its commit log): the streaming shapes, items per second.
     *
     * @return one reference row per shape it published
     */
    public static List<Row> seedRows() {
        List<Row> rows = new ArrayList<>();
        rows.add(Row.reference(Shapes.STREAM, SEED_SYSTEM, 0.746, SEED_NOTE));
        rows.add(Row.reference(Shapes.CHANNEL, SEED_SYSTEM, 0.652, SEED_NOTE));
        rows.add(Row.reference(Shapes.ROUND_TRIP, SEED_SYSTEM, 0.464, SEED_NOTE));
        double[] fanOut = {0.490, 0.680, 0.640, 0.546};
        for (int i = 0; i < fanOut.length; i++) {
            rows.add(Row.reference(Shapes.fanOut(Shapes.FAN_OUT_CONSUMERS.get(i)), SEED_SYSTEM, fanOut[i], SEED_NOTE));
        }
        return rows;
    }

    // ------------------------------------------------------------------------------------ comparing

    /**
     * The tables' rows grouped by shape, shapes in order, systems in order within each.
     *
     * @param rows the rows, in any order
     * @return the shapes and their rows
     */
    static Map<Shape, List<Row>> byShape(List<Row> rows) {
        Map<Shape, List<Row>> byShape = new LinkedHashMap<>();
        rows.stream()
                .sorted(Comparator.comparingInt((Row r) -> r.shape().order()).thenComparing(r -> r.shape().title())
                        .thenComparingInt(r -> rank(r)))
                .forEach(r -> byShape.computeIfAbsent(r.shape(), s -> new ArrayList<>()).add(r));
        return byShape;
    }

    private static int rank(Row r) {
        int i = SYSTEM_ORDER.indexOf(r.system());
        if (i >= 0) {
            return i;
        }
        return switch (r.role()) {
            case MOROUTINE -> SYSTEM_ORDER.size();
            case BASELINE -> SYSTEM_ORDER.size() + 1;
            case PEER -> SYSTEM_ORDER.size() + 2;
            case BOUND -> SYSTEM_ORDER.size() + 3;
            case REFERENCE -> SYSTEM_ORDER.size() + 4;
            case PROCESS_PEER -> SYSTEM_ORDER.size() + 5;
        };
    }

    /**
     * The best peer of a table: the one with the best compared value.
     *
     * @param table one shape's rows
     * @return the best peer that ran, if any
     */
    static Optional<Row> bestPeer(List<Row> table) {
        if (table.isEmpty()) {
            return Optional.empty();
        }
        Comparator<Row> byValue = Comparator.comparingDouble(Row::compared);
        return table.stream()
                .filter(r -> r.role() == Role.PEER && r.ran())
                .max(table.getFirst().shape().kind().higherIsBetter() ? byValue : byValue.reversed());
    }

    /**
     * The moroutine row a summary line shows: the one named {@code moroutine} if there is one (the
     * pool), else the first.
     *
     * @param table one shape's rows
     * @return the row, if any
     */
    static Optional<Row> moroutine(List<Row> table) {
        return table.stream()
                .filter(r -> r.role() == Role.MOROUTINE)
                .min(Comparator.comparingInt(r -> Dispatcher.MOROUTINE.equals(r.system()) ? 0 : 1));
    }

    /**
     * How many times better {@code row} is than {@code best}: above 1, {@code row} is better.
     *
     * @param row a row
     * @param best the row to compare with
     * @return the ratio, or NaN
     */
    static double ratio(Row row, Row best) {
        return row.shape().kind().higherIsBetter() ? row.compared() / best.compared() : best.compared() / row.compared();
    }

    // ------------------------------------------------------------------------------------ rendering

    /**
     * The summary: one line per shape.
     *
     * @param rows all rows
     * @return a Markdown table with its legend
     */
    public static String summary(List<Row> rows) {
        boolean bounds = rows.stream().anyMatch(r -> r.role() == Role.BOUND);
        List<List<String>> cells = new ArrayList<>();
        List<String> titles = new ArrayList<>(List.of("shape", "unit", "moroutine: median (spread)",
                "best peer: median (spread)", "moroutine ÷ best peer", "Piscina (this machine)", "seed (another machine)"));
        if (bounds) {
            titles.add("upper bound: spinning SPSC queue");
        }
        cells.add(titles);
        for (Map.Entry<Shape, List<Row>> entry : byShape(rows).entrySet()) {
            Shape shape = entry.getKey();
            List<Row> table = entry.getValue();
            Optional<Row> moroutine = moroutine(table);
            Optional<Row> best = bestPeer(table);
            Optional<Row> piscina = table.stream().filter(r -> r.system().startsWith(PiscinaResults.PISCINA))
                    .max(Comparator.comparingDouble(r -> r.ran() ? (shape.kind().higherIsBetter() ? r.compared() : -r.compared())
                            : Double.NEGATIVE_INFINITY));
            Optional<Row> seed = table.stream().filter(r -> r.role() == Role.REFERENCE).findFirst();
            String unit = shape.kind() == Kind.TIME ? "speed-up over sequential" : shape.unit();
            List<String> line = new ArrayList<>(List.of(
                    shape.title(),
                    unit + (shape.kind().higherIsBetter() ? ", higher is better" : ", lower is better"),
                    moroutine.map(ResultsTable::headline).orElse("–"),
                    best.map(b -> b.system() + " " + headline(b)).orElse("–"),
                    moroutine.flatMap(m -> best.map(b -> verdict(ratio(m, b)))).orElse("–"),
                    piscina.map(p -> p.ran() ? headline(p) : p.note()).orElse(""),
                    seed.map(s -> num(s.median())).orElse("")));
            if (bounds) {
                line.add(table.stream().filter(r -> r.role() == Role.BOUND).findFirst().map(ResultsTable::headline).orElse(""));
            }
            cells.add(line);
        }
        return markdown(cells, 2) + "\n"
                + "\"moroutine ÷ best peer\": how many times better moroutine's median is than the best peer's (the"
                + " best of the JDK's and Piscina's; for latency and time, the peer's median over moroutine's): above"
                + " 1 moroutine is ahead, below 1 it is behind. The spread is the lowest and the highest iteration."
                + (bounds ? " The spinning SPSC queue is an upper bound for a bounded hand-off (both threads spin, never"
                        + " park), not a peer." : "") + "\n";
    }

    /**
     * One shape on the quiet and on the busy machine: moroutine's rows, and the best peer's (the best
     * on the quiet machine among those that also ran under load).
     *
     * @param shape the shape
     * @param mine moroutine on the quiet machine
     * @param mineBusy moroutine under load
     * @param peer the best peer on the quiet machine
     * @param peerBusy that peer under load
     * @param bestBusy the best peer under load, which may be another
     */
    record LoadShare(Shape shape, Row mine, Row mineBusy, Row peer, Row peerBusy, Optional<Row> bestBusy) {

        /** What moroutine keeps of its quiet figure: the busy one as a share of it (for latency and time, the quiet over the busy). */
        double kept() {
            return ratio(mineBusy, mine);
        }

        /** What the peer keeps of its own. */
        double peerKept() {
            return ratio(peerBusy, peer);
        }

        /** Whether moroutine keeps at least the peer's share; empty when either share is unknown. */
        Optional<Boolean> keepsPeerShare() {
            return Double.isNaN(kept()) || Double.isNaN(peerKept()) ? Optional.empty() : Optional.of(kept() >= peerKept());
        }
    }

    /**
     * Every shape that moroutine and a peer ran on both machines.
     *
     * @param quiet the rows of the quiet run
     * @param busy the rows of the same benchmarks under load
     * @return one share per such shape, in the busy run's order
     */
    static List<LoadShare> loadShares(List<Row> quiet, List<Row> busy) {
        List<LoadShare> shares = new ArrayList<>();
        Map<Shape, List<Row>> quietByShape = byShape(quiet);
        for (Map.Entry<Shape, List<Row>> entry : byShape(busy).entrySet()) {
            List<Row> busyTable = entry.getValue();
            List<Row> quietTable = quietByShape.getOrDefault(entry.getKey(), List.of());
            Optional<Row> mQuiet = moroutine(quietTable);
            Optional<Row> mBusy = mQuiet.flatMap(m -> system(busyTable, m.system()));
            Optional<Row> pQuiet = bestPeer(quietTable.stream().filter(r -> system(busyTable, r.system()).isPresent()).toList());
            Optional<Row> pBusy = pQuiet.flatMap(p -> system(busyTable, p.system()));
            if (mBusy.isPresent() && pBusy.isPresent()) {
                shares.add(new LoadShare(entry.getKey(), mQuiet.get(), mBusy.get(), pQuiet.get(), pBusy.get(), bestPeer(busyTable)));
            }
        }
        return shares;
    }

    /**
     * The busy-machine comparison: per shape, what moroutine keeps of its quiet figure beside what the
     * best peer keeps of its own ({@link LoadShare}), and moroutine against the best peer under load.
     *
     * @param quiet the rows of the quiet run
     * @param busy the rows of the same benchmarks under load
     * @param condition what the load was, for the legend
     * @return a Markdown table with its legend
     */
    public static String underLoad(List<Row> quiet, List<Row> busy, String condition) {
        List<List<String>> cells = new ArrayList<>();
        cells.add(List.of("shape", "moroutine: quiet → busy (kept)", "best peer: quiet → busy (kept)",
                "moroutine ÷ best peer, busy", "moroutine keeps at least the peer's share"));
        for (LoadShare share : loadShares(quiet, busy)) {
            cells.add(List.of(share.shape().title(),
                    num(share.mine().compared()) + " → " + num(share.mineBusy().compared()) + " (" + percent(share.kept()) + ")",
                    share.peer().system() + " " + num(share.peer().compared()) + " → " + num(share.peerBusy().compared())
                            + " (" + percent(share.peerKept()) + ")",
                    share.bestBusy().map(b -> b.system() + ": " + verdict(ratio(share.mineBusy(), b))).orElse("–"),
                    share.keepsPeerShare().map(keeps -> keeps ? "yes" : "**no**").orElse("–")));
        }
        return markdown(cells, 1) + "\n"
                + "Each JMH benchmark ran twice in this run: on the quiet machine (the tables above), then with "
                + condition + ". \"kept\": the busy figure as a share of the quiet one (for latency and time, the"
                + " quiet over the busy), so 100% means no loss. The best peer is the best on the quiet machine"
                + " among those that also ran under load; Piscina runs on the quiet machine only.\n";
    }

    private static Optional<Row> system(List<Row> table, String system) {
        return table.stream().filter(r -> r.system().equals(system) && r.ran()).findFirst();
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }

    /** A row's headline value and its spread. */
    static String headline(Row r) {
        if (!r.ran()) {
            return "–";
        }
        if (r.role() == Role.REFERENCE) {
            return num(r.compared());
        }
        if (r.shape().kind() == Kind.TIME) {
            return num(r.speedUp()) + "× (" + range(r.speedUpLow(), r.speedUpHigh()) + ")";
        }
        return num(r.median()) + " (" + range(r.low(), r.high()) + ")";
    }

    private static String verdict(double ratio) {
        if (Double.isNaN(ratio)) {
            return "–";
        }
        return num(ratio) + "×" + (ratio >= 1 ? "" : " (behind)");
    }

    /**
     * Formats the rows as Markdown tables, one per shape, with padded columns so that the text also
     * reads as a table in a terminal.
     *
     * @param rows the rows, in any order
     * @return the tables, each with a heading and a line naming the best peer
     */
    public static String render(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Shape, List<Row>> entry : byShape(rows).entrySet()) {
            Shape shape = entry.getKey();
            List<Row> table = entry.getValue();
            Optional<Row> best = bestPeer(table);
            boolean shares = table.stream().anyMatch(r -> !Double.isNaN(r.minShare()));
            boolean notes = table.stream().anyMatch(r -> !r.note().isEmpty());
            out.append("### ").append(shape.title()).append(", ").append(shape.unit())
                    .append(shape.kind().higherIsBetter() && shape.kind() != Kind.TIME ? " (higher is better)" : " (lower is better)")
                    .append("\n\n");
            List<Column> columns = new ArrayList<>();
            columns.add(new Column("system", Row::system));
            switch (shape.kind()) {
                case LATENCY -> {
                    columns.add(new Column("p50", r -> num(r.median())));
                    columns.add(new Column("p90", r -> num(r.p90())));
                    columns.add(new Column("p99", r -> num(r.p99())));
                    columns.add(new Column("p50 per iteration", r -> range(r.low(), r.high())));
                    columns.add(new Column("samples", r -> r.samples() == 0 ? "–" : Long.toString(r.samples())));
                }
                case TIME -> {
                    columns.add(new Column("median", r -> num(r.median())));
                    columns.add(new Column("per iteration", r -> range(r.low(), r.high())));
                    columns.add(new Column("speed-up", r -> Double.isNaN(r.speedUp()) ? "–"
                            : num(r.speedUp()) + "× (" + range(r.speedUpLow(), r.speedUpHigh()) + ")"));
                    columns.add(new Column("iterations", r -> r.samples() == 0 ? "–" : Long.toString(r.samples())));
                }
                default -> {
                    columns.add(new Column("median", r -> num(r.median())));
                    columns.add(new Column("per iteration", r -> range(r.low(), r.high())));
                    columns.add(new Column("mean ± 99.9% CI", r -> pm(r.mean(), r.error())));
                    columns.add(new Column("iterations", r -> r.samples() == 0 ? "–" : Long.toString(r.samples())));
                }
            }
            if (shares) {
                columns.add(new Column("share per consumer", r -> Double.isNaN(r.minShare()) ? "–"
                        : pct(r.minShare()) + " – " + pct(r.maxShare())));
            }
            columns.add(new Column("B/op", r -> bytes(r.bytesPerOp())));
            columns.add(new Column("other CPU", r -> cores(r.otherCpu())));
            if (table.stream().anyMatch(r -> !r.passes().isEmpty())) {
                columns.add(new Column("core to core, ns (per JVM)", Row::passesShown));
            }
            columns.add(new Column("vs best peer", r -> r.role() == Role.MOROUTINE && r.ran()
                    ? best.map(b -> num(ratio(r, b)) + "×").orElse("") : ""));
            if (notes) {
                columns.add(new Column("note", Row::note));
            }
            List<List<String>> cells = new ArrayList<>();
            cells.add(columns.stream().map(Column::title).toList());
            for (Row r : table) {
                cells.add(columns.stream().map(c -> c.value().apply(r)).toList());
            }
            out.append(markdown(cells, 1)).append('\n');
            best.ifPresent(b -> out.append("Best peer: ").append(b.system()).append(", ")
                    .append(shape.kind() == Kind.TIME ? num(b.speedUp()) + "× speed-up" : num(b.median()) + " " + shape.unit())
                    .append(". \"vs best peer\" = how many times better moroutine is (above 1: ahead).")
                    .append(shares ? " \"share per consumer\": the lowest and highest share of the items that one"
                            + " consumer got in one run (fair: " + pct(100.0 / consumers(table)) + ")." : "")
                    .append("\n\n"));
        }
        return out.toString();
    }

    private static int consumers(List<Row> table) {
        String key = table.getFirst().shape().key();
        return key.startsWith("fan-out-") ? Integer.parseInt(key.substring("fan-out-".length())) : 1;
    }

    private record Column(String title, Function<Row, String> value) {}

    private static String markdown(List<List<String>> cells, int leftColumns) {
        int columns = cells.getFirst().size();
        int[] width = IntStream.range(0, columns)
                .map(c -> cells.stream().mapToInt(line -> line.get(c).length()).max().orElse(0))
                .toArray();
        StringBuilder out = new StringBuilder();
        for (int line = 0; line < cells.size(); line++) {
            out.append('|');
            for (int c = 0; c < columns; c++) {
                String cell = cells.get(line).get(c);
                String pad = " ".repeat(width[c] - cell.length());
                boolean left = c < leftColumns || (c == columns - 1 && "note".equals(cells.getFirst().get(c)));
                out.append(' ').append(left ? cell + pad : pad + cell).append(" |");
            }
            out.append('\n');
            if (line == 0) {
                out.append('|');
                for (int c = 0; c < columns; c++) {
                    boolean left = c < leftColumns || (c == columns - 1 && "note".equals(cells.getFirst().get(c)));
                    out.append(left ? ":" + "-".repeat(width[c] + 1) : "-".repeat(width[c] + 1) + ":").append('|');
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    // ------------------------------------------------------------------------------------ numbers

    /** Three significant digits, without exponents. */
    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "–";
        }
        double a = Math.abs(v);
        String pattern = a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : a >= 0.01 || a == 0 ? "%.3f" : "%.2g";
        return String.format(Locale.ROOT, pattern, v);
    }

    private static String pm(double score, double error) {
        return Double.isNaN(score) ? "–" : Double.isNaN(error) ? num(score) : num(score) + " ± " + num(error);
    }

    static String range(double low, double high) {
        return Double.isNaN(low) ? "–" : num(low) + "–" + num(high);
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, "%.1f%%", v);
    }

    private static String bytes(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.0f", v);
    }

    private static String cores(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2f", v);
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }

    private static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
