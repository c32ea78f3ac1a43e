package dev.moroutine.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.format.OutputFormat;

/**
 * JMH's output, split: everything JMH would print goes to a log file (its usual format), and the
 * terminal gets one line per benchmark: how far the whole run is, the estimated time left, the shape
 * and system, a dot per iteration, and the score. Failures are echoed to the terminal too.
 */
final class Progress implements OutputFormat {

    private final OutputFormat log;
    private final PrintStream terminal;
    private final int total;
    private final long startNanos;
    private final long guessNanosPerBenchmark;
    private int done;
    private String round = "";
    private ResultsTable.Shape shape;

    /**
     * Makes the progress display.
     *
     * @param log where JMH's own output goes
     * @param terminal where the progress lines go
     * @param total how many benchmark runs the whole suite has (all rounds)
     * @param guessPerBenchmark an estimate of one benchmark run, until some have run
     */
    Progress(OutputFormat log, PrintStream terminal, int total, Duration guessPerBenchmark) {
        this.log = log;
        this.terminal = terminal;
        this.total = total;
        this.startNanos = System.nanoTime();
        this.guessNanosPerBenchmark = guessPerBenchmark.toNanos();
    }

    /** Names the round the next benchmarks belong to. */
    void round(int round, int rounds, String condition) {
        this.round = (rounds > 1 ? " round " + round + "/" + rounds : "") + condition;
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
        log.startBenchmark(params);
        long elapsed = System.nanoTime() - startNanos;
        long perBenchmark = done == 0 ? guessNanosPerBenchmark : elapsed / done;
        long left = perBenchmark * (total - done);
        ResultsTable.Placement place = ResultsTable.place(params);
        shape = place.shape();
        terminal.printf(Locale.ROOT, "[JMH %2d/%d%s, %s elapsed, ~%s left] %s · %s ", done + 1, total, round,
                clock(elapsed), clock(left), place.shape().title(), place.system());
        terminal.flush();
    }

    @Override
    public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
        log.iteration(benchParams, params, iteration);
    }

    @Override
    public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration, IterationResult data) {
        log.iterationResult(benchParams, params, iteration, data);
        terminal.print(params.getType() == IterationType.WARMUP ? "," : ".");
        terminal.flush();
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
        log.endBenchmark(result);
        done++;
        if (result == null) {
            terminal.println(" failed (see the log)");
        } else {
            Result<?> primary = result.getPrimaryResult();
            String score = switch (shape.kind()) {
                case THROUGHPUT -> ResultsTable.num(primary.getScore() / 1e6) + " " + shape.unit();
                case LATENCY -> "p50 " + ResultsTable.num(primary.getStatistics().getPercentile(50)) + " " + shape.unit();
                default -> ResultsTable.num(primary.getScore()) + " " + primary.getScoreUnit();
            };
            terminal.printf(Locale.ROOT, " %s%n", score);
        }
        terminal.flush();
    }

    @Override
    public void startRun() {
        log.startRun();
    }

    @Override
    public void endRun(Collection<RunResult> result) {
        log.endRun(result);
    }

    @Override
    public void print(String s) {
        log.print(s);
    }

    @Override
    public void println(String s) {
        log.println(s);
        if (s.contains("<failure>") || s.contains("Exception") || s.contains("ERROR")) {
            terminal.println();
            terminal.println(s);
        }
    }

    @Override
    public void flush() {
        log.flush();
        terminal.flush();
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public void verbosePrintln(String s) {
        log.verbosePrintln(s);
    }

    @Override
    public void write(int b) {
        log.write(b);
    }

    @Override
    public void write(byte[] b) throws IOException {
        log.write(b);
    }

    static String clock(long nanos) {
        long seconds = Math.max(0, nanos) / 1_000_000_000L;
        return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }
}
