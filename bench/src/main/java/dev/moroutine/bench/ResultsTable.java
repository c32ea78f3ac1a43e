package dev.moroutine.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.util.Statistics;

/**
 * Turns JMH's results into the Markdown tables of {@code RESULTS.md}: one table per benchmark shape,
 * one row per system, and for each moroutine row its ratio to the best JDK executor of that table.
 *
 * <p>{@link #rows} reads JMH's {@link RunResult}s; {@link #render} formats plain {@link Row}s, so the
 * formatting is testable without running JMH.
 */
public final class ResultsTable {

    /** The order of systems within a table: moroutine first, then the JDK's. */
    static final List<String> SYSTEM_ORDER = List.of(
            Dispatcher.MOROUTINE,
            Dispatcher.MOROUTINE_DEDICATED,
            Dispatcher.THREAD_POOL_EXECUTOR,
            Dispatcher.FORK_JOIN_POOL,
            Dispatcher.COMPLETABLE_FUTURE,
            Dispatcher.VIRTUAL_THREADS);

    /**
     * One benchmark shape: a table.
     *
     * @param order where the table goes, smallest first
     * @param title the table's heading
     * @param latency {@code true} when the score is a time per operation (lower is better), {@code false}
     *     for tasks per second (higher is better)
     */
    public record Shape(int order, String title, boolean latency) {}

    /**
     * One system's result in one shape. Latency rows are in µs, throughput rows in tasks per second.
     *
     * @param shape the table it belongs to
     * @param system the {@code system} parameter
     * @param score JMH's score: the mean (latency) or tasks per second (throughput)
     * @param error the half-width of JMH's 99.9% confidence interval of the score, or NaN
     * @param low the lowest iteration's value (its median, for latency)
     * @param high the highest iteration's value (its median, for latency)
     * @param p50 the median over all samples, or NaN for throughput
     * @param p90 the 90th percentile, or NaN
     * @param p99 the 99th percentile, or NaN
     * @param samples how many samples (latency) or measurement iterations (throughput)
     * @param otherCpu CPU used by other processes or stolen by the hypervisor during the measurement, in
     *     cores, or NaN if unknown
     * @param bytesPerTask bytes allocated per task by all threads, or NaN if unknown
     */
    public record Row(Shape shape, String system, double score, double error, double low, double high,
            double p50, double p90, double p99, long samples, double otherCpu, double bytesPerTask) {

        /** The value the ratio compares: the median for latency, the score for throughput. */
        double headline() {
            return shape.latency() && !Double.isNaN(p50) ? p50 : score;
        }

        boolean moroutine() {
            return system.startsWith(Dispatcher.MOROUTINE);
        }
    }

    private ResultsTable() {}

    /**
     * Reads JMH's results.
     *
     * @param results what {@code Runner.run()} returned
     * @return one row per benchmark and parameter combination
     */
    public static List<Row> rows(Collection<RunResult> results) {
        List<Row> rows = new ArrayList<>();
        for (RunResult run : results) {
            BenchmarkParams params = run.getParams();
            Shape shape = shapeOf(params);
            String system = params.getParam("system");
            Result<?> primary = run.getPrimaryResult();
            Statistics all = primary.getStatistics();
            List<Double> perIteration = new ArrayList<>();
            for (BenchmarkResult fork : run.getBenchmarkResults()) {
                for (IterationResult iteration : fork.getIterationResults()) {
                    Statistics it = iteration.getPrimaryResult().getStatistics();
                    perIteration.add(shape.latency() ? it.getPercentile(50) : it.getMean());
                }
            }
            Result<?> others = run.getSecondaryResults().get(OtherCpuProfiler.OTHERS);
            Result<?> steal = run.getSecondaryResults().get(OtherCpuProfiler.STEAL);
            Result<?> allocated = run.getSecondaryResults().get("gc.alloc.rate.norm");
            double low = perIteration.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
            double high = perIteration.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
            boolean sampled = shape.latency();
            rows.add(new Row(shape, system != null ? system : label(params),
                    primary.getScore(), primary.getScoreError(), low, high,
                    sampled ? all.getPercentile(50) : Double.NaN,
                    sampled ? all.getPercentile(90) : Double.NaN,
                    sampled ? all.getPercentile(99) : Double.NaN,
                    sampled ? all.getN() : perIteration.size(),
                    others == null ? Double.NaN : others.getScore() + (steal == null ? 0 : steal.getScore()),
                    allocated == null ? Double.NaN : allocated.getScore()));
        }
        return rows;
    }

    /** A row label for a benchmark without a {@code system} parameter: its method and parameters. */
    private static String label(BenchmarkParams params) {
        String benchmark = params.getBenchmark();
        StringBuilder label = new StringBuilder(benchmark.substring(benchmark.lastIndexOf('.') + 1));
        for (String key : params.getParamsKeys()) {
            label.append(' ').append(key).append('=').append(params.getParam(key));
        }
        return label.toString();
    }

    private static Shape shapeOf(BenchmarkParams params) {
        String benchmark = params.getBenchmark();
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        return switch (method) {
            case "pingPong" -> new Shape(0, "Ping-pong latency: 1 worker, one task at a time, µs per round trip", true);
            case "pipelined" -> {
                int inFlight = Integer.parseInt(params.getParam("inFlight"));
                yield new Shape(1 + inFlight, "Pipelined throughput: 1 worker, " + inFlight + " tasks in flight, M tasks/s", false);
            }
            case "parallel" -> new Shape(1_000_000, "Parallel throughput: " + ParallelBenchmark.WORKERS
                    + " workers, batches of " + ParallelBenchmark.TASKS + " tasks, M tasks/s", false);
            default -> {
                boolean latency = switch (params.getMode()) {
                    case SampleTime, AverageTime, SingleShotTime -> true;
                    default -> false;
                };
                yield new Shape(2_000_000, benchmark + " (" + params.getMode().longLabel() + ")", latency);
            }
        };
    }

    /**
     * Formats the rows as Markdown tables, one per shape, with padded columns so that the text also
     * reads as a table in a terminal.
     *
     * @param rows the rows, in any order
     * @return the tables, each with a heading and a line naming the best JDK executor
     */
    public static String render(List<Row> rows) {
        Map<Shape, List<Row>> byShape = new LinkedHashMap<>();
        rows.stream()
                .sorted(Comparator.comparingInt((Row r) -> r.shape().order()).thenComparingInt(r -> rank(r.system())))
                .forEach(r -> byShape.computeIfAbsent(r.shape(), s -> new ArrayList<>()).add(r));
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Shape, List<Row>> entry : byShape.entrySet()) {
            Shape shape = entry.getKey();
            List<Row> table = entry.getValue();
            Row best = bestJdk(shape, table);
            out.append("## ").append(shape.title()).append(shape.latency() ? " (lower is better)" : " (higher is better)")
                    .append("\n\n");
            List<List<String>> cells = new ArrayList<>();
            if (shape.latency()) {
                cells.add(List.of("system", "p50", "p90", "p99", "mean ± 99.9% CI", "p50 per iteration",
                        "samples", "B/task", "other CPU", "vs best JDK"));
                for (Row r : table) {
                    cells.add(List.of(r.system(), num(r.p50()), num(r.p90()), num(r.p99()), pm(r.score(), r.error()),
                            range(r.low(), r.high()), Long.toString(r.samples()), bytes(r.bytesPerTask()),
                            cores(r.otherCpu()), ratio(shape, r, best)));
                }
            } else {
                cells.add(List.of("system", "M tasks/s ± 99.9% CI", "per iteration", "iterations", "B/task",
                        "other CPU", "vs best JDK"));
                for (Row r : table) {
                    cells.add(List.of(r.system(), pm(r.score() / 1e6, r.error() / 1e6), range(r.low() / 1e6, r.high() / 1e6),
                            Long.toString(r.samples()), bytes(r.bytesPerTask()), cores(r.otherCpu()), ratio(shape, r, best)));
                }
            }
            out.append(markdown(cells)).append('\n');
            if (best != null) {
                out.append("Best JDK executor: ").append(best.system()).append(", ")
                        .append(shape.latency() ? "p50 " + num(best.headline()) + " µs" : num(best.headline() / 1e6) + " M tasks/s")
                        .append(". \"vs best JDK\" = how many times ")
                        .append(shape.latency() ? "shorter moroutine's p50 is" : "higher moroutine's score is")
                        .append(" (above 1: moroutine is better).\n\n");
            }
        }
        return out.toString();
    }

    private static int rank(String system) {
        int i = SYSTEM_ORDER.indexOf(system);
        return i < 0 ? SYSTEM_ORDER.size() : i;
    }

    private static Row bestJdk(Shape shape, List<Row> table) {
        Comparator<Row> better = Comparator.comparingDouble(Row::headline);
        return table.stream()
                .filter(r -> !r.moroutine() && !Double.isNaN(r.headline()))
                .min(shape.latency() ? better : better.reversed())
                .orElse(null);
    }

    private static String ratio(Shape shape, Row row, Row best) {
        if (!row.moroutine() || best == null) {
            return "";
        }
        double ratio = shape.latency() ? best.headline() / row.headline() : row.headline() / best.headline();
        return num(ratio) + "×";
    }

    private static String markdown(List<List<String>> cells) {
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
                out.append(' ').append(c == 0 ? cell + pad : pad + cell).append(" |");
            }
            out.append('\n');
            if (line == 0) {
                out.append('|');
                for (int c = 0; c < columns; c++) {
                    out.append(c == 0 ? ":" + "-".repeat(width[c] + 1) : "-".repeat(width[c] + 1) + ":").append('|');
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    /** Three significant digits, without exponents. */
    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "–";
        }
        double a = Math.abs(v);
        String pattern = a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, v);
    }

    private static String pm(double score, double error) {
        return Double.isNaN(error) ? num(score) : num(score) + " ± " + num(error);
    }

    private static String range(double low, double high) {
        return num(low) + " – " + num(high);
    }

    private static String bytes(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.0f", v);
    }

    private static String cores(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2f", v);
    }
}
