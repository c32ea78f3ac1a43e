package dev.moroutine.bench;

import static dev.moroutine.bench.RunInfo.git;
import static dev.moroutine.bench.RunInfo.load;

import dev.moroutine.Moroutine;
import dev.moroutine.bench.ResultsTable.Row;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The whole comparison, one command: Piscina on Node.js (through {@code node/piscina-bench.mjs}),
 * then the cluster shapes (Hazelcast members, in a JVM of their own: {@link ClusterResults}), then
 * every JMH benchmark, then the report: {@code RESULTS.md} (a summary line per shape, the issues'
 * targets, and a table per shape) and {@code chart.png}. The terminal shows progress (which
 * shape, which system, how far, the time left) and, at the end, the summary and the targets.
 *
 * <p>Run from the repository root (the {@code bench} profile calls this class at {@code package},
 * on the JDK 25 toolchain):
 * <pre>
 * mvn -q -Pbench -DskipTests package                            # quick: about 5 minutes on 2 cores
 * mvn -q -Pbench -DskipTests package -Dbench.mode=full          # about 50 minutes
 * mvn -q -Pbench -DskipTests package -Dbench.include=FanOut     # a regular expression over benchmark names
 * mvn -q -Pbench -DskipTests package -Dbench.busy=1             # then all again with 1 core kept busy
 * </pre>
 *
 * <h2>A busy machine</h2>
 * With {@code --busy=N} the JMH benchmarks run twice: as usual, then again while {@link Burner}s
 * (other processes) keep N cores busy. The report adds a section that compares, per shape, what
 * moroutine keeps of its quiet figure with what the best JDK peer keeps of its own, and moroutine's
 * ratio to the best peer under load. Piscina and the cluster shapes run on the quiet machine only.
 *
 * <h2>Rounds</h2>
 * The benchmarks run in rounds (full mode: 3): each round runs every benchmark and system once, in
 * a fresh JVM (one JMH fork). A burst of load from elsewhere on the machine then lands on some
 * iterations of every system instead of on all iterations of one, and the rounds together show the
 * run-to-run spread that a single fork hides. The tables pool the iterations of all rounds.
 *
 * <p>Arguments: {@code --mode=quick|full}, {@code --include=<regex>} (Piscina runs when the regex
 * matches {@code dev.moroutine.bench.Piscina}, the cluster shapes when it matches
 * {@code dev.moroutine.bench.ClusterBench}), {@code --busy=<cores>} (0: quiet only),
 * {@code --results=<directory>}, {@code --node=<the harness's directory>}.
 */
public final class BenchMain {

    /** What the include regex must match for the Node.js side to run. */
    static final String PISCINA_NAME = "dev.moroutine.bench.Piscina";

    /**
     * How long to measure.
     *
     * @param rounds how many times the whole suite runs, one fork per benchmark each time
     * @param warmups warmup iterations per fork
     * @param warmupTime the length of one warmup iteration
     * @param iterations measurement iterations per fork
     * @param iterationTime the length of one measurement iteration
     * @param processWarmUp how long a fork whose system works in other processes runs its benchmark
     *     before JMH's warm-up (see {@link ProcessPeers#warmUp})
     */
    record Mode(int rounds, int warmups, TimeValue warmupTime, int iterations, TimeValue iterationTime, TimeValue processWarmUp) {

        static Mode named(String name) {
            return switch (name) {
                // Quick: iterations of 200 ms, not 250: each still holds a dozen operations of the slowest shape (a batch of
                // 100,000 tasks, about 15 ms) and thousands of most, and a quick run of about 90 forks is 28 s shorter.
                case "quick" -> new Mode(1, 2, TimeValue.milliseconds(200), 4, TimeValue.milliseconds(200), TimeValue.seconds(2));
                case "full" -> new Mode(3, 3, TimeValue.seconds(1), 5, TimeValue.seconds(1), TimeValue.seconds(5));
                default -> throw new IllegalArgumentException("unknown mode \"" + name + "\"; use quick or full");
            };
        }

        /** A guess of one fork's duration: its iterations and a JVM start. */
        Duration perBenchmark() {
            long millis = warmups * warmupTime.convertTo(TimeUnit.MILLISECONDS)
                    + iterations * iterationTime.convertTo(TimeUnit.MILLISECONDS) + 1_000;
            return Duration.ofMillis(millis);
        }

        @Override
        public String toString() {
            return rounds + (rounds == 1 ? " round" : " rounds") + " of 1 fork per benchmark, each fork " + warmups
                    + " × " + warmupTime + " warmup and " + iterations + " × " + iterationTime + " measurement"
                    + " (worker JVMs and pipe children run the benchmark for " + processWarmUp + " first)";
        }
    }

    private BenchMain() {}

    /**
     * Runs the comparison and writes the results.
     *
     * @param args {@code --mode=}, {@code --include=}, {@code --busy=}, {@code --results=}, {@code --node=}
     * @throws RunnerException if JMH fails, or a benchmark throws
     * @throws IOException if the results cannot be written
     * @throws InterruptedException if interrupted while Node runs
     */
    public static void main(String[] args) throws RunnerException, IOException, InterruptedException {
        System.setProperty("java.awt.headless", "true");
        String modeName = "quick";
        String include = "dev.moroutine.bench.";
        Path resultsDir = Path.of("results");
        Path nodeDir = Path.of("node");
        int busy = 0;
        for (String arg : args) {
            if (arg.startsWith("--mode=")) {
                modeName = arg.substring("--mode=".length());
            } else if (arg.startsWith("--include=")) {
                include = arg.substring("--include=".length());
            } else if (arg.startsWith("--results=")) {
                resultsDir = Path.of(arg.substring("--results=".length()));
            } else if (arg.startsWith("--node=")) {
                nodeDir = Path.of(arg.substring("--node=".length()));
            } else if (arg.startsWith("--busy=")) {
                busy = busyCores(arg.substring("--busy=".length()));
            } else {
                throw new IllegalArgumentException("unknown argument \"" + arg
                        + "\"; expected --mode=, --include=, --busy=, --results= or --node=");
            }
        }
        Mode mode = Mode.named(modeName);
        Files.createDirectories(resultsDir);
        Path json = resultsDir.resolve("jmh-result.json");
        Path log = resultsDir.resolve("jmh-log.txt");
        Path markdown = resultsDir.resolve("RESULTS.md");
        Path chart = resultsDir.resolve("chart.png");
        boolean everything = "dev.moroutine.bench.".equals(include);

        int jmhRuns = countRuns(include) * mode.rounds() * (busy > 0 ? 2 : 1);
        boolean piscina = Pattern.compile(include).matcher(PISCINA_NAME).find();
        boolean cluster = Pattern.compile(include).matcher(ClusterResults.NAME).find();
        if (jmhRuns == 0 && !piscina && !cluster) {
            throw new IllegalArgumentException("nothing matches --include=" + include);
        }
        System.out.printf(Locale.ROOT, "moroutine benchmarks, %s mode: %s%s%s; JMH: %d runs (%s), about %d min%n",
                modeName, piscina ? "Piscina on Node.js, then " : "", cluster ? "the cluster shapes, then " : "", "JMH", jmhRuns,
                mode, Math.round((jmhRuns * mode.perBenchmark().toSeconds() + (piscina ? 35 : 0) + (cluster ? 30 : 0)) / 60.0));

        Conditions before = Conditions.now();
        Instant start = Instant.now();
        PiscinaResults node = piscina ? runPiscina(nodeDir, modeName, resultsDir.resolve("piscina-result.properties")) : null;
        ClusterResults clustered = cluster ? ClusterResults.run(modeName, resultsDir.resolve("cluster-result.properties")) : null;

        List<RunResult> results = List.of();
        List<RunResult> busyResults = List.of();
        if (jmhRuns > 0) {
            try (PrintStream logStream = new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8)) {
                Progress progress = new Progress(OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL),
                        System.out, jmhRuns, mode.perBenchmark());
                results = runJmh(include, mode, progress, "");
                if (busy > 0) {
                    Burner burners = Burner.start(busy);
                    try {
                        busyResults = runJmh(include, mode, progress, ", " + busyLabel(busy));
                    } finally {
                        burners.close();
                    }
                }
            }
            writeJson(results, json);
            if (busy > 0) {
                writeJson(busyResults, resultsDir.resolve("jmh-result-busy.json"));
            }
        }
        Duration took = Duration.between(start, Instant.now());
        Conditions after = Conditions.now();

        List<Row> rows = new ArrayList<>(ResultsTable.rows(results));
        if (node != null) {
            rows.addAll(node.rows());
        }
        if (clustered != null) {
            rows.addAll(clustered.rows());
        }
        if (everything || Pattern.compile(include).matcher("dev.moroutine.bench.StreamingBenchmark").find()
                || Pattern.compile(include).matcher("dev.moroutine.bench.FanOutBenchmark").find()) {
            rows.addAll(ResultsTable.seedRows().stream()
                    .filter(seed -> rows.stream().anyMatch(r -> r.shape().equals(seed.shape())))
                    .toList());
        }
        String title = "moroutine beside its peers — " + modeName + " mode, " + start.truncatedTo(ChronoUnit.MINUTES)
                + ", " + RunInfo.machine();
        Chart.write(rows, title, chart);
        String summary = ResultsTable.summary(rows);
        List<Row> busyRows = ResultsTable.rows(busyResults);
        List<Targets.Target> checked = new ArrayList<>(Targets.evaluate(rows, took, everything && "quick".equals(modeName) && busy == 0));
        if (busy > 0) {
            checked.addAll(Targets.underLoad(rows, busyRows, busyLabel(busy)));
        }
        String targets = Targets.render(checked);
        String underLoad = busy > 0 ? ResultsTable.underLoad(rows, busyRows, busyLabel(busy)) : "";
        String report = header(modeName, mode, include, busy, results, node, clustered, start, took, before, after)
                + "## Summary\n\n" + summary + "\n"
                + "## Targets (measured, not asserted)\n\n" + targets + "\n"
                + (busy > 0 ? "## Under load: " + busyLabel(busy) + "\n\n" + underLoad + "\n" : "")
                + "## Every shape\n\n" + ResultsTable.render(rows);
        Files.writeString(markdown, report);
        System.out.println();
        System.out.println(summary);
        System.out.println(targets);
        if (busy > 0) {
            System.out.println(underLoad);
        }
        System.out.println("Written: " + markdown + " (every table), " + chart + ", " + json + " and " + log
                + " (JMH's own output); took " + took.toMinutes() + " min " + took.toSecondsPart() + " s");
    }

    /** How many JMH runs (benchmark × parameter combination) the include regex selects, in one round. */
    private static int countRuns(String include) {
        OutputFormat quiet = OutputFormatFactory.createFormatInstance(
                new PrintStream(PrintStream.nullOutputStream()), VerboseMode.SILENT);
        int runs = 0;
        for (BenchmarkListEntry entry : BenchmarkList.defaultList().find(quiet, List.of(include), List.of())) {
            int combinations = 1;
            if (entry.getParams().hasValue()) {
                for (String[] values : entry.getParams().get().values()) {
                    combinations *= values.length;
                }
            }
            runs += combinations;
        }
        return runs;
    }

    private static int busyCores(String value) {
        int cores;
        try {
            cores = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            cores = -1;
        }
        int cpus = Runtime.getRuntime().availableProcessors();
        if (cores < 0 || cores >= cpus) {
            throw new IllegalArgumentException("--busy=" + value + ": give how many of this machine's " + cpus
                    + " cores other processes keep busy, from 0 to " + (cpus - 1) + " (one at least must stay for the benchmark)");
        }
        return cores;
    }

    private static String busyLabel(int cores) {
        return cores + (cores == 1 ? " core" : " cores") + " kept busy by another process";
    }

    private static void writeJson(List<RunResult> results, Path json) throws IOException {
        try (PrintStream out = new PrintStream(Files.newOutputStream(json), false, StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, out).writeOut(results);
        }
    }

    /**
     * Every benchmark JVM has a fixed heap (so that resizing does not show up as noise) and touches
     * it whole before it runs. The first write to a page of a fresh heap faults into the kernel, and
     * on a virtual machine such a fault is slow: on the 2-core VMs this bench was built on, encoding and
     * decoding 1,024 items took 80–150 µs a batch until the young generation had been written once
     * (seconds into the run, past JMH's warm-up) and 9–15 µs after, and {@code ForkJoinPool}'s parallel
     * shape ran at 4.0 M tasks/s without the pre-touch and 9.5 M with it. Without it, a shape's score is
     * partly how fast it allocates fresh memory, which depends on the host, not on the code under test.
     * The heap asks for transparent huge pages, where the kernel hands them out on request ({@code
     * madvise}), because touching 1 GiB in 4 KiB pages took each JVM 1.9 s to start there, and in 2 MiB
     * pages 0.13 s: with about 90 JVMs in a quick run, that was a third of its time. (Where the kernel
     * gives none, the JVM says so once and runs on small pages.)
     */
    static final List<String> HEAP = List.of("-Xms1g", "-Xmx1g", "-XX:+UseTransparentHugePages", "-XX:+AlwaysPreTouch");

    private static List<RunResult> runJmh(String include, Mode mode, Progress progress, String condition)
            throws RunnerException {
        Options options = new OptionsBuilder()
                .include(include)
                .forks(1)
                .warmupIterations(mode.warmups())
                .warmupTime(mode.warmupTime())
                .measurementIterations(mode.iterations())
                .measurementTime(mode.iterationTime())
                .timeout(TimeValue.seconds(60))
                // Set, not inherited from this JVM: the heap (see HEAP), and no warning that JMH reads
                // field offsets through sun.misc.Unsafe.
                .jvmArgs(HEAP.toArray(String[]::new))
                .jvmArgsAppend("--sun-misc-unsafe-memory-access=allow",
                        "-D" + ProcessPeers.WARM_UP_PROPERTY + "=" + mode.processWarmUp().convertTo(TimeUnit.MILLISECONDS),
                        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED") // worker JVMs' shared memory (Agrona)
                // First, so that its measurements fall outside the others' windows (JMH calls them back in reverse order).
                .addProfiler(CoreToCoreProfiler.class)
                .addProfiler(OtherCpuProfiler.class)
                .addProfiler(SideResults.class)
                // Bytes allocated per operation, by all threads: a cost that the time hides.
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(true)
                .build();
        Map<String, List<RunResult>> byBenchmark = new LinkedHashMap<>();
        for (int round = 1; round <= mode.rounds(); round++) {
            progress.round(round, mode.rounds(), condition);
            for (RunResult result : new Runner(options, progress).run()) {
                byBenchmark.computeIfAbsent(key(result.getParams()), k -> new ArrayList<>()).add(result);
            }
        }
        return byBenchmark.values().stream().map(BenchMain::merge).toList();
    }

    /**
     * Runs the Node.js harness, which installs Piscina if it is missing; never fails the run.
     *
     * @return Piscina's rows, or rows that say why it did not run
     */
    private static PiscinaResults runPiscina(Path nodeDir, String mode, Path out) throws InterruptedException {
        Path script = nodeDir.resolve("piscina-bench.mjs");
        if (!Files.exists(script)) {
            return PiscinaResults.notRun(script + " is missing");
        }
        try {
            Files.deleteIfExists(out);
            Process node = new ProcessBuilder("node", script.toString(), "--mode=" + mode,
                    "--out=" + out.toAbsolutePath()).inheritIO().start();
            int status = node.waitFor();
            if (status != 0) {
                return PiscinaResults.notRun("the Node.js harness exited with status " + status);
            }
            if (!Files.exists(out)) {
                return PiscinaResults.notRun("the Node.js harness wrote no results");
            }
            return PiscinaResults.read(out);
        } catch (IOException e) {
            return PiscinaResults.notRun("Node.js could not be started (" + e.getMessage() + ")");
        }
    }

    /** The benchmark and its parameter values: what the rounds have in common. */
    private static String key(BenchmarkParams params) {
        StringBuilder key = new StringBuilder(params.getBenchmark());
        for (String name : params.getParamsKeys()) {
            key.append(' ').append(name).append('=').append(params.getParam(name));
        }
        return key.toString();
    }

    /**
     * The machine's state at one moment of a run, for the report's header.
     *
     * @param load the one-minute load average, negative when unknown
     * @param coreToCoreNanos how long a cache line took to pass between two cores, one way; NaN when not measured
     */
    private record Conditions(double load, double coreToCoreNanos) {

        /** Measures them now: the core-to-core pass takes about a second, at most ten on a machine too busy for it. */
        static Conditions now() throws InterruptedException {
            return new Conditions(RunInfo.load(), CoreToCore.oneWayNanos(CoreToCore.RUNS, CoreToCore.ROUND_TRIPS, Duration.ofSeconds(10)));
        }

        /** The core-to-core pass for the report: "215 ns", or "not measured (the machine was too busy)". */
        String coreToCore() {
            return Double.isNaN(coreToCoreNanos) ? "not measured (the machine was too busy)"
                    : String.format(Locale.ROOT, "%.0f ns", coreToCoreNanos);
        }
    }

    /** One result whose forks are the rounds' forks. */
    private static RunResult merge(List<RunResult> rounds) {
        List<BenchmarkResult> forks = new ArrayList<>();
        for (RunResult round : rounds) {
            forks.addAll(round.getBenchmarkResults());
        }
        return new RunResult(rounds.getFirst().getParams(), forks);
    }

    private static String header(String modeName, Mode mode, String include, int busy, Collection<RunResult> results,
            PiscinaResults node, ClusterResults clustered, Instant start, Duration took, Conditions before, Conditions after) {
        String command = "mvn -q -Pbench -DskipTests package"
                + ("quick".equals(modeName) ? "" : " -Dbench.mode=" + modeName)
                + ("dev.moroutine.bench.".equals(include) ? "" : " -Dbench.include=" + include)
                + (busy == 0 ? "" : " -Dbench.busy=" + busy);
        List<String> lines = new ArrayList<>(List.of(
                "# moroutine beside its peers",
                "",
                "- Command (from the repository root): `" + command + "`",
                "- Run: " + start.truncatedTo(ChronoUnit.SECONDS) + ", took " + took.toMinutes() + " min "
                        + took.toSecondsPart() + " s",
                "- Code: commit " + git("rev-parse", "--short", "HEAD")
                        + (git("status", "--porcelain", "--", "../core").isEmpty() ? "" : ", with uncommitted changes in core/")
                        + "; moroutine-core loaded from " + coreJar(),
                "- Machine: " + RunInfo.machine()
                        + "; load average (1 min) " + load(before.load()) + " at the start, " + load(after.load())
                        + " at the end (other engineers' builds share this machine)",
                "- Core to core (a cache line passed between two spinning threads, one way; the median of " + CoreToCore.RUNS
                        + " runs of " + String.format(Locale.ROOT, "%,d", CoreToCore.ROUND_TRIPS) + " round trips): "
                        + before.coreToCore() + " at the start, " + after.coreToCore() + " at the end. Every hand-off between"
                        + " threads pays at least one such pass, and on a virtual machine it changes with where the hypervisor"
                        + " runs the virtual CPUs"));
        if (!results.isEmpty()) {
            BenchmarkParams params = results.iterator().next().getParams();
            lines.add("- JMH " + params.getJmhVersion() + ", mode " + modeName + ": " + mode + "; JVM "
                    + params.getVmName() + " " + params.getVmVersion() + ", options " + String.join(" ", params.getJvmArgs()));
        }
        lines.add("- " + (node == null ? "Piscina: not selected by --include" : node.summary()));
        lines.add("- " + (clustered == null ? "Cluster shapes: not selected by --include" : clustered.summary()));
        lines.add("- The seed's figures are its own published ones, " + ResultsTable.SEED_NOTE
                + ": a reference, never compared.");
        lines.add("- Medians: of the iterations (of all samples, for latency); the spread is the lowest and the"
                + " highest iteration. \"other CPU\": the cores that other processes used (or the hypervisor stole)"
                + " during the measurement; above ~0.2 the row is disturbed. \"B/op\": bytes allocated per operation"
                + " by all threads.");
        lines.add("- The chart: `chart.png` beside this file.");
        lines.add("");
        lines.add("");
        return String.join("\n", lines);
    }

    /**
     * Where moroutine-core came from: this reactor's {@code core/target} (the working tree) or the
     * local Maven repository (whatever was last installed there), with the file's time.
     */
    private static String coreJar() {
        try {
            Path jar = Path.of(Moroutine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            String modified = Files.getLastModifiedTime(jar).toInstant().truncatedTo(ChronoUnit.SECONDS).toString();
            Path repository = Path.of("..").toAbsolutePath().normalize();
            String where = jar.startsWith(repository) ? repository.relativize(jar).toString()
                    : "the local Maven repository's " + jar.getFileName();
            return where + " (" + modified + ")";
        } catch (IOException | URISyntaxException | RuntimeException e) {
            return "an unknown place";
        }
    }
}
