package dev.moroutine.bench;

import dev.moroutine.Moroutine;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the dispatch benchmarks with JMH, then writes {@code RESULTS.md}: per shape, each system's
 * score with its spread, and moroutine's ratio to the best JDK executor. The same tables go to
 * standard output; JMH's own results, all rounds together, go to {@code jmh-result.json}.
 *
 * <p>Run from the repository root (the {@code bench} profile calls this class at {@code package},
 * on the JDK 25 toolchain):
 * <pre>
 * mvn -q -Pbench -DskipTests package                            # quick: 3 to 4 minutes
 * mvn -q -Pbench -DskipTests package -Dbench.mode=full          # about 20 minutes
 * mvn -q -Pbench -DskipTests package -Dbench.include=PingPong   # a regular expression over benchmark names
 * </pre>
 *
 * <h2>Rounds</h2>
 * The benchmarks run in rounds: each round runs every benchmark and system once, in a fresh JVM
 * (one JMH fork). A burst of load from elsewhere on the machine then lands on some iterations of
 * every system instead of on all iterations of one, and the rounds together show the run-to-run
 * spread that a single fork hides. The tables pool the iterations of all rounds.
 *
 * <p>Arguments: {@code --mode=quick|full}, {@code --include=<regex>}, {@code --results=<directory>}.
 */
public final class BenchMain {

    /**
     * How long to measure.
     *
     * @param rounds how many times the whole suite runs, one fork per benchmark each time
     * @param warmups warmup iterations per fork
     * @param warmupTime the length of one warmup iteration
     * @param iterations measurement iterations per fork
     * @param iterationTime the length of one measurement iteration
     */
    record Mode(int rounds, int warmups, TimeValue warmupTime, int iterations, TimeValue iterationTime) {

        static Mode named(String name) {
            return switch (name) {
                case "quick" -> new Mode(2, 2, TimeValue.milliseconds(500), 5, TimeValue.milliseconds(500));
                case "full" -> new Mode(3, 5, TimeValue.seconds(1), 10, TimeValue.seconds(1));
                default -> throw new IllegalArgumentException("unknown mode \"" + name + "\"; use quick or full");
            };
        }

        @Override
        public String toString() {
            return rounds + " rounds of 1 fork per benchmark, each fork " + warmups + " × " + warmupTime + " warmup and "
                    + iterations + " × " + iterationTime + " measurement";
        }
    }

    private BenchMain() {}

    /**
     * Runs the benchmarks and writes the results.
     *
     * @param args {@code --mode=}, {@code --include=}, {@code --results=}
     * @throws RunnerException if JMH fails, or a benchmark throws
     * @throws IOException if the results cannot be written
     */
    public static void main(String[] args) throws RunnerException, IOException {
        String modeName = "quick";
        String include = "dev.moroutine.bench.";
        Path resultsDir = Path.of("results");
        for (String arg : args) {
            if (arg.startsWith("--mode=")) {
                modeName = arg.substring("--mode=".length());
            } else if (arg.startsWith("--include=")) {
                include = arg.substring("--include=".length());
            } else if (arg.startsWith("--results=")) {
                resultsDir = Path.of(arg.substring("--results=".length()));
            } else {
                throw new IllegalArgumentException("unknown argument \"" + arg + "\"; expected --mode=, --include= or --results=");
            }
        }
        Mode mode = Mode.named(modeName);
        Files.createDirectories(resultsDir);
        Path json = resultsDir.resolve("jmh-result.json");
        Path markdown = resultsDir.resolve("RESULTS.md");

        Options options = new OptionsBuilder()
                .include(include)
                .forks(1)
                .warmupIterations(mode.warmups())
                .warmupTime(mode.warmupTime())
                .measurementIterations(mode.iterations())
                .measurementTime(mode.iterationTime())
                // Set, not inherited from this JVM: a fixed heap, so that heap resizing does not show
                // up as noise, and no warning that JMH reads field offsets through sun.misc.Unsafe.
                .jvmArgs("-Xms1g", "-Xmx1g", "--sun-misc-unsafe-memory-access=allow")
                .addProfiler(OtherCpuProfiler.class)
                // Bytes allocated per task, by all threads: a cost of dispatch that the time hides.
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(true)
                .build();

        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        Instant start = Instant.now();
        Map<String, List<RunResult>> byBenchmark = new LinkedHashMap<>();
        for (int round = 1; round <= mode.rounds(); round++) {
            System.out.printf("%n######## Round %d of %d ########%n%n", round, mode.rounds());
            for (RunResult result : new Runner(options).run()) {
                byBenchmark.computeIfAbsent(key(result.getParams()), k -> new ArrayList<>()).add(result);
            }
            if (byBenchmark.isEmpty()) {
                throw new IllegalStateException("no benchmark matched --include=" + include);
            }
        }
        Duration took = Duration.between(start, Instant.now());
        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();

        List<RunResult> results = byBenchmark.values().stream().map(BenchMain::merge).toList();
        try (PrintStream out = new PrintStream(Files.newOutputStream(json), false, StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, out).writeOut(results);
        }
        String report = header(modeName, mode, include, results, start, took, loadBefore, loadAfter)
                + ResultsTable.render(ResultsTable.rows(results));
        Files.writeString(markdown, report);
        System.out.println();
        System.out.println(report);
        System.out.println("Written: " + markdown + " and " + json);
    }

    /** The benchmark and its parameter values: what the rounds have in common. */
    private static String key(BenchmarkParams params) {
        StringBuilder key = new StringBuilder(params.getBenchmark());
        for (String name : params.getParamsKeys()) {
            key.append(' ').append(name).append('=').append(params.getParam(name));
        }
        return key.toString();
    }

    /** One result whose forks are the rounds' forks. */
    private static RunResult merge(List<RunResult> rounds) {
        List<BenchmarkResult> forks = new ArrayList<>();
        for (RunResult round : rounds) {
            forks.addAll(round.getBenchmarkResults());
        }
        return new RunResult(rounds.getFirst().getParams(), forks);
    }

    private static String header(String modeName, Mode mode, String include, Collection<RunResult> results,
            Instant start, Duration took, double loadBefore, double loadAfter) {
        BenchmarkParams params = results.iterator().next().getParams();
        int cpus = Runtime.getRuntime().availableProcessors();
        String command = "mvn -q -Pbench -DskipTests package"
                + ("quick".equals(modeName) ? "" : " -Dbench.mode=" + modeName)
                + ("dev.moroutine.bench.".equals(include) ? "" : " -Dbench.include=" + include);
        List<String> lines = List.of(
                "# Dispatch benchmarks: moroutine beside the JDK's executors",
                "",
                "- Command (from the repository root): `" + command + "`",
                "- Run: " + start.truncatedTo(ChronoUnit.SECONDS) + ", took " + took.toMinutes() + " min "
                        + took.toSecondsPart() + " s",
                "- Code: working tree at commit " + git("rev-parse", "--short", "HEAD")
                        + (git("status", "--porcelain", "--", "../core").isEmpty() ? "" : ", with uncommitted changes in core/")
                        + "; moroutine-core loaded from " + coreJar(),
                "- JMH " + params.getJmhVersion() + ", mode " + modeName + ": " + mode + "; JVM options "
                        + String.join(" ", params.getJvmArgs()),
                "- JVM: " + params.getVmName() + " " + params.getVmVersion() + " (JDK " + params.getJdkVersion() + ")",
                "- Machine: " + cpus + " CPUs, " + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                        + "; load average (1 min) " + load(loadBefore) + " at the start, " + load(loadAfter) + " at the end",
                "- The task is a noop (`() -> 1`), so the scores are the cost of dispatch, hand-off and wait.",
                "- ± is half of JMH's 99.9% confidence interval over all measurement iterations of all rounds; "
                        + "\"per iteration\" is the lowest and highest iteration (their medians, for latency).",
                "- \"B/task\" is the bytes allocated per task by all threads (JMH's gc profiler).",
                "- \"other CPU\" is the CPU that other processes used during the measurement, in cores (of " + cpus
                        + "), plus the CPU time the hypervisor stole when there was any; above ~0.2 the row is disturbed.",
                "- VirtualThreads starts a virtual thread per task on the JDK's default scheduler (one carrier per CPU),"
                        + " whatever the worker count of the shape.",
                "",
                "");
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

    /** Runs git in the working directory: its first line of output, "" for none, or "unknown" when git fails. */
    private static String git(String... args) {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor() == 0 ? out.lines().findFirst().orElse("") : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String load(double load) {
        return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", load);
    }
}
