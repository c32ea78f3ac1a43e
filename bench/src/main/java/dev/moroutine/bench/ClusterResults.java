package dev.moroutine.bench;

import dev.moroutine.bench.ResultsTable.Role;
import dev.moroutine.bench.ResultsTable.Row;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The cluster shapes in the comparison: {@link ClusterBench} run in a JVM of its own (three
 * Hazelcast members need a few seconds and several hundred threads, which JMH's forks would pay per
 * benchmark), moroutine and Hazelcast's own {@code IExecutorService} alternated round by round, its
 * rounds' figures read back as rows.
 *
 * @param summary what ran, for the report's header
 * @param rows the rows, or "not run" rows that say why
 */
public record ClusterResults(String summary, List<Row> rows) {

    /** What the include regex must match for the cluster shapes to run. */
    static final String NAME = "dev.moroutine.bench.ClusterBench";
    /** The system property that sizes the common {@code ForkJoinPool}. */
    static final String COMMON_POOL_THREADS = "java.util.concurrent.ForkJoinPool.common.parallelism";
    /** moroutine's cluster pool. */
    static final String MOROUTINE = "moroutine-cluster";
    /** moroutine's cluster pool, a stream at twice the high-water mark. */
    static final String MOROUTINE_WIDE = "moroutine-cluster (highWaterMark " + 2 * ClusterBench.CHUNK + ")";
    /** Hazelcast's own executor, the peer. */
    static final String RAW = "Hazelcast IExecutorService";

    /**
     * Runs {@link ClusterBench} in a child JVM.
     *
     * @param mode {@code quick} or {@code full}
     * @param out where the child writes its figures
     * @return the results; "not run" rows when the child failed
     * @throws InterruptedException if interrupted while it runs
     */
    static ClusterResults run(String mode, Path out) throws InterruptedException {
        // Quick: fewer tasks per round. A common pool of 2 threads whatever the cores: where it has one (2 cores or
        // fewer), Hazelcast completes every future it returns on a thread started for it, which held Hazelcast's own
        // executor to about 4,000 tasks/s here and cost both sides a thread start per message; the README advises it.
        List<String> settings = "quick".equals(mode) ? List.of("--rounds=5", "--warmups=1", "--tasks=5000")
                : List.of("--rounds=9", "--warmups=2", "--tasks=" + ClusterBench.TASKS);
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        command.addAll(BenchMain.HEAP);
        command.addAll(List.of("-D" + COMMON_POOL_THREADS + "=2", "-cp", System.getProperty("java.class.path"), ClusterBench.class.getName()));
        command.addAll(settings);
        command.add("--out=" + out.toAbsolutePath());
        try {
            Files.deleteIfExists(out);
            System.out.println("cluster shapes: " + String.join(" ", settings) + " (a JVM of its own)");
            int status = new ProcessBuilder(command).inheritIO().start().waitFor();
            if (status != 0 || !Files.exists(out)) {
                return notRun("ClusterBench exited with status " + status);
            }
            Properties p = new Properties();
            try (Reader in = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
                p.load(in);
            }
            return parse(p);
        } catch (IOException e) {
            return notRun("ClusterBench could not run (" + e.getMessage() + ")");
        }
    }

    /**
     * Rows that say the cluster shapes did not run, and why.
     *
     * @param reason why
     * @return the results
     */
    static ClusterResults notRun(String reason) {
        List<Row> rows = new ArrayList<>();
        for (var shape : List.of(Shapes.CLUSTER_PIPELINED, Shapes.CLUSTER_STREAM)) {
            rows.add(Row.notRun(shape, MOROUTINE, reason));
            rows.add(Row.notRun(shape, RAW, reason));
        }
        return new ClusterResults("Cluster shapes: not run (" + reason + ")", rows);
    }

    /**
     * Writes the rounds' figures, for {@link #parse}.
     *
     * @param file the properties file
     * @param perRound moroutine pipelined, raw pipelined, moroutine stream, raw stream, moroutine stream at twice the
     *     high-water mark: per round, per second
     * @param tasks pipelined tasks per round
     * @param seconds how long the run took
     * @throws IOException if it cannot be written
     */
    static void write(Path file, double[][] perRound, int tasks, double seconds) throws IOException {
        Properties p = new Properties();
        String[] keys = {"pipelined.moroutine", "pipelined.raw", "stream.moroutine", "stream.raw", "stream.moroutine.wide"};
        for (int i = 0; i < keys.length; i++) {
            p.setProperty(keys[i], Arrays.stream(perRound[i]).mapToObj(v -> String.format(Locale.ROOT, "%.1f", v))
                    .collect(Collectors.joining(",")));
        }
        p.setProperty("tasks", Integer.toString(tasks));
        p.setProperty("seconds", String.format(Locale.ROOT, "%.1f", seconds));
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, "ClusterBench: per round, per second");
        }
    }

    /**
     * Turns the figures into rows.
     *
     * @param p what {@link #write} wrote
     * @return the results
     */
    static ClusterResults parse(Properties p) {
        String tasks = p.getProperty("tasks");
        List<Row> rows = List.of(
                Row.of(Shapes.CLUSTER_PIPELINED, MOROUTINE, Role.MOROUTINE, millions(p, "pipelined.moroutine"))
                        .withNote(tasks + " tasks per round, round robin over the 3 members"),
                Row.of(Shapes.CLUSTER_PIPELINED, RAW, Role.PEER, millions(p, "pipelined.raw"))
                        .withNote("submitToMember of a DataSerializable Callable, round robin"),
                Row.of(Shapes.CLUSTER_STREAM, MOROUTINE, Role.MOROUTINE, millions(p, "stream.moroutine"))
                        .withNote("a streaming moroutine on another member, at most " + ClusterBench.CHUNK + " items ahead"),
                Row.of(Shapes.CLUSTER_STREAM, MOROUTINE_WIDE, Role.MOROUTINE, millions(p, "stream.moroutine.wide"))
                        .withNote("pulls of " + ClusterBench.CHUNK + ", the next on its way while the consumer takes these"),
                Row.of(Shapes.CLUSTER_STREAM, RAW, Role.PEER, millions(p, "stream.raw"))
                        .withNote("callables returning ArrayLists of " + ClusterBench.CHUNK + ", one at a time"));
        int rounds = rows.getFirst().perIteration().size();
        return new ClusterResults("Cluster shapes: 3 Hazelcast members in one JVM (-D" + COMMON_POOL_THREADS + "=2), " + rounds
                + " rounds alternating moroutine and IExecutorService, took " + p.getProperty("seconds") + " s", rows);
    }

    private static List<Double> millions(Properties p, String key) {
        return Arrays.stream(p.getProperty(key, "").split(",")).map(String::strip).filter(v -> !v.isEmpty())
                .map(v -> Double.parseDouble(v) * 1e-6).toList();
    }
}
