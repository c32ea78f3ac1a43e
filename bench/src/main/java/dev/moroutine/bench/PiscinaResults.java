package dev.moroutine.bench;

import dev.moroutine.bench.ResultsTable.Role;
import dev.moroutine.bench.ResultsTable.Row;
import dev.moroutine.bench.ResultsTable.Shape;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * Piscina's results, as {@code bench/node/piscina-bench.mjs} writes them (Java properties), turned
 * into rows of the shapes they mirror: ping-pong, pipelined with 64 in flight, parallel, and the
 * CPU-bound speed-up (over Node's own sequential run).
 *
 * @param available whether Piscina ran
 * @param reason why not, or ""
 * @param summary the versions and settings, for the report's header
 * @param rows the rows (a "not run" row per shape when Piscina did not run)
 */
public record PiscinaResults(boolean available, String reason, String summary, List<Row> rows) {

    /** The system name of Piscina's rows (with its defaults). */
    public static final String PISCINA = "Piscina";

    /** The shapes that Piscina is measured on. */
    static final List<Shape> SHAPES = List.of(Shapes.PING_PONG, Shapes.PIPELINED_64, Shapes.PARALLEL, Shapes.CPU);

    /**
     * Rows that say Piscina did not run, and why.
     *
     * @param reason why
     * @return the results
     */
    public static PiscinaResults notRun(String reason) {
        return new PiscinaResults(false, reason, "Piscina: not run (" + reason + ")",
                SHAPES.stream().map(s -> Row.notRun(s, PISCINA, reason)).toList());
    }

    /**
     * Reads the harness's output file.
     *
     * @param file the properties file
     * @return the results
     * @throws IOException if it cannot be read
     */
    public static PiscinaResults read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        }
        return parse(p);
    }

    /**
     * Turns the harness's properties into rows.
     *
     * @param p the properties
     * @return the results
     */
    public static PiscinaResults parse(Properties p) {
        if (!Boolean.parseBoolean(p.getProperty("available"))) {
            return notRun(p.getProperty("reason", "the harness did not say why"));
        }
        String versions = "Piscina " + p.getProperty("piscina") + " on Node " + p.getProperty("node");
        String tuned = p.getProperty("tuned.concurrentTasksPerWorker", "64");
        List<Row> rows = new ArrayList<>();
        List<Double> pingPong = list(p, "pingPong.rounds", 1);
        if (!pingPong.isEmpty()) {
            rows.add(Row.of(Shapes.PING_PONG, PISCINA, Role.PEER, pingPong)
                    .withLatency(number(p, "pingPong.p50"), number(p, "pingPong.p90"), number(p, "pingPong.p99"),
                            (long) number(p, "pingPong.samples"))
                    .withNote(versions + ", 1 thread"));
        }
        addThroughput(rows, p, Shapes.PIPELINED_64, "pipelined64", versions, tuned);
        addThroughput(rows, p, Shapes.PARALLEL, "parallel", versions, tuned);
        List<Double> sequential = list(p, "cpu.sequential.rounds", 1);
        List<Double> pool = list(p, "cpu.pool.rounds", 1);
        if (!sequential.isEmpty() && !pool.isEmpty()) {
            double baseline = ResultsTable.median(sequential);
            rows.add(Row.of(Shapes.CPU, PISCINA, Role.PEER, pool).withSpeedUp(baseline)
                    .withNote(versions + ", " + p.getProperty("cpu.threads") + " threads; speed-up over Node's own"
                            + " sequential run, " + ResultsTable.num(baseline) + " ms"));
        }
        String summary = versions + ", mode " + p.getProperty("mode") + ", took " + p.getProperty("seconds") + " s;"
                + " load average (1 min) " + p.getProperty("load.start") + " at its start, " + p.getProperty("load.end")
                + " at its end";
        return new PiscinaResults(true, "", summary, List.copyOf(rows));
    }

    private static void addThroughput(List<Row> rows, Properties p, Shape shape, String key, String versions,
            String tuned) {
        List<Double> defaults = list(p, key + ".rounds", 1e-6);
        if (!defaults.isEmpty()) {
            rows.add(Row.of(shape, PISCINA, Role.PEER, defaults).withNote(versions + ", defaults"));
        }
        List<Double> more = list(p, key + ".tuned.rounds", 1e-6);
        if (!more.isEmpty()) {
            rows.add(Row.of(shape, PISCINA + ", concurrentTasksPerWorker " + tuned, Role.PEER, more)
                    .withNote(versions + ", tasks queue at the worker"));
        }
    }

    private static List<Double> list(Properties p, String key, double scale) {
        String value = p.getProperty(key, "").strip();
        if (value.isEmpty()) {
            return List.of();
        }
        return Arrays.stream(value.split(",")).map(s -> Double.parseDouble(s.strip()) * scale).toList();
    }

    private static double number(Properties p, String key) {
        String value = p.getProperty(key);
        return value == null ? Double.NaN : Double.parseDouble(value);
    }
}
