package dev.moroutine.bench.http;

import static dev.moroutine.bench.RunInfo.git;
import static dev.moroutine.bench.RunInfo.load;

import dev.moroutine.bench.http.HttpServers.Contender;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToDoubleFunction;

/**
 * The HTTP comparison, one command: moroutine {@code serve}, Netty 4.2's hello-world server,
 * Helidon SE 4.5 and the JDK's {@code HttpServer} on virtual threads ({@link HttpServers}), each
 * answering {@link Hello}'s plaintext and JSON paths to {@code wrk} at 64 keep-alive connections.
 *
 * <pre>
 * mvn -q -Pbench-http -DskipTests package                          # quick: 3 rounds, about 5 minutes
 * mvn -q -Pbench-http -DskipTests package -Dbench.mode=full        # 5 rounds of longer runs, about 12 minutes
 * </pre>
 *
 * <p>Each round starts every server in a fresh JVM of its own, in an order that rotates from round
 * to round (so that a burst of load elsewhere lands on different servers), checks both answers with
 * {@link HttpClient}, warms both paths up with wrk, then measures each with wrk, the first path
 * measured alternating from round to round. The report
 * gives the medians of the rounds. wrk, the server and this JVM share the machine's CPUs: the report
 * says how many cores the server, wrk and everything else used during each measurement.
 *
 * <p>wrk is looked for on the {@code PATH}; without it, the servers are still started and checked,
 * and the report says how to install it.
 *
 * <p>With {@code taskset} on the {@code PATH}, wrk runs on one CPU and each server on the others
 * ({@link Pinning}), so that every server is measured on the same cores; without it, all share all.
 *
 * <p>Arguments: {@code --mode=quick|full}, {@code --results=<directory>},
 * {@code --servers=SERVE,NETTY,HELIDON,JDK} (a subset, in any order), {@code --pin=auto|off}.
 */
public final class HttpBench {

    /** wrk's keep-alive connections. */
    static final int CONNECTIONS = 64;
    /** wrk's threads: one, so that it leaves the most of a 2-CPU machine to the servers. */
    static final int WRK_THREADS = 1;
    /** The server JVMs' options, the same for all. */
    static final List<String> SERVER_JVM = List.of("-Xms512m", "-Xmx512m");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final String INSTALL_HINT = "install it (Debian, Ubuntu: apt-get install wrk; macOS: brew install wrk;"
            + " or build it from its repository, wg/wrk) and run this again";

    /** The two answers measured. */
    enum Endpoint {
        PLAINTEXT(Hello.PLAINTEXT_PATH, "plaintext", Hello.TEXT_TYPE),
        JSON(Hello.JSON_PATH, "JSON", Hello.JSON_TYPE);

        final String path;
        final String label;
        final String type;

        Endpoint(String path, String label, String type) {
            this.path = path;
            this.label = label;
            this.type = type;
        }

        String body() {
            return this == JSON ? new String(Hello.json(), StandardCharsets.UTF_8) : Hello.TEXT;
        }
    }

    /**
     * How long to measure.
     *
     * @param rounds how many times every server is started and measured
     * @param warmup the warm-up wrk run per path
     * @param measure the measured wrk run per path
     */
    record Mode(String name, int rounds, Duration warmup, Duration measure) {

        static Mode named(String name) {
            return switch (name) {
                case "quick" -> new Mode(name, 3, Duration.ofSeconds(5), Duration.ofSeconds(5));
                case "full" -> new Mode(name, 5, Duration.ofSeconds(5), Duration.ofSeconds(15));
                default -> throw new IllegalArgumentException("unknown mode \"" + name + "\"; use quick or full");
            };
        }

        /** A guess of one server's turn in one round. */
        Duration perServer() {
            return warmup.plus(measure).plusMillis(300).multipliedBy(Endpoint.values().length).plusSeconds(2);
        }
    }

    /**
     * One measured wrk run.
     *
     * @param serverCores the cores the server JVM used during it
     * @param wrkCores the cores wrk used
     * @param otherCores the cores everything else used (other processes, stolen time)
     */
    record Sample(Contender contender, Endpoint endpoint, int round, Wrk wrk, double serverCores, double wrkCores,
            double otherCores) {}

    private HttpBench() {}

    /**
     * Runs the comparison and writes {@code HTTP.md} into the results directory.
     *
     * @param args {@code --mode=}, {@code --results=}, {@code --servers=}
     * @throws IOException if a server cannot be started or the results cannot be written
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        Mode mode = Mode.named("quick");
        Path results = Path.of("results");
        List<Contender> contenders = List.of(Contender.values());
        boolean pin = true;
        for (String arg : args) {
            if (arg.startsWith("--mode=")) {
                mode = Mode.named(arg.substring("--mode=".length()));
            } else if (arg.startsWith("--results=")) {
                results = Path.of(arg.substring("--results=".length()));
            } else if (arg.startsWith("--servers=")) {
                contenders = Arrays.stream(arg.substring("--servers=".length()).split(","))
                        .map(name -> Contender.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList();
            } else if (arg.startsWith("--pin=")) {
                pin = switch (arg.substring("--pin=".length())) {
                    case "auto" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("unknown pinning \"" + arg + "\"; use --pin=auto or --pin=off");
                };
            } else {
                throw new IllegalArgumentException("unknown argument \"" + arg
                        + "\"; expected --mode=, --results=, --servers= or --pin=");
            }
        }
        Files.createDirectories(results);
        Path report = results.resolve("HTTP.md");
        Path wrkLog = results.resolve("http-wrk.txt");
        Path serverLog = results.resolve("http-servers.log");
        Files.deleteIfExists(serverLog);

        Path wrk = onPath("wrk");
        String wrkVersion = wrk == null ? null : wrkVersion(wrk);
        Pinning pinning = pin ? Pinning.choose(onPath("taskset")) : Pinning.none("not pinned (--pin=off): the servers share every"
                + " CPU with wrk");
        int turns = mode.rounds() * contenders.size();
        System.out.printf(Locale.ROOT, "HTTP servers side by side, %s mode: %s; %d rounds of %d servers, about %d min%n",
                mode.name(), contenders.stream().map(Contender::label).toList(), mode.rounds(), contenders.size(),
                Math.round(turns * (wrk == null ? 3 : mode.perServer().toSeconds()) / 60.0));
        System.out.println("CPUs: " + pinning.why());
        if (wrk == null) {
            System.out.println("wrk was not found on the PATH: the servers are only started and checked. To measure them, "
                    + INSTALL_HINT + ".");
        }

        double loadBefore = load();
        Instant start = Instant.now();
        List<Sample> samples = new ArrayList<>();
        int turn = 0;
        try (PrintStream raw = new PrintStream(Files.newOutputStream(wrkLog), true, StandardCharsets.UTF_8);
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (int round = 1; round <= mode.rounds(); round++) {
                for (int i = 0; i < contenders.size(); i++) {
                    Contender contender = contenders.get((i + round - 1) % contenders.size());
                    turn++;
                    Duration left = mode.perServer().multipliedBy(turns - turn + 1);
                    try (ChildServer server = ChildServer.start(contender, serverLog, pinning)) {
                        for (Endpoint endpoint : Endpoint.values()) {
                            check(client, contender, server.port, endpoint);
                        }
                        if (wrk == null) {
                            System.out.printf(Locale.ROOT, "[%d/%d] round %d, %s: answers checked%n", turn, turns, round,
                                    contender.label());
                            continue;
                        }
                        for (Endpoint endpoint : Endpoint.values()) { // both paths compiled before either is measured
                            runWrk(wrk, pinning, server, endpoint, mode.warmup(), raw, contender.label() + " " + endpoint.label + " warm-up");
                        }
                        List<Endpoint> order = round % 2 == 1 ? List.of(Endpoint.values()) : List.of(Endpoint.values()).reversed();
                        for (Endpoint endpoint : order) { // the path measured first alternates, as the JIT may still be at work
                            System.out.printf(Locale.ROOT, "[%d/%d] round %d, %-16s %-9s (about %d min %02d s left): ", turn, turns,
                                    round, contender.label(), endpoint.label, left.toMinutes(), left.toSecondsPart());
                            Sample sample = measure(wrk, pinning, server, contender, endpoint, round, mode.measure(), raw);
                            samples.add(sample);
                            System.out.printf(Locale.ROOT, "%s req/s, p50 %s, p99 %s; cores: server %.2f, wrk %.2f, other %.2f%s%n",
                                    rate(sample.wrk().requestsPerSecond()), micros(sample.wrk().p50Micros()),
                                    micros(sample.wrk().p99Micros()), sample.serverCores(), sample.wrkCores(),
                                    sample.otherCores(), sample.wrk().errors() > 0 ? ", " + sample.wrk().errors() + " errors" : "");
                        }
                    }
                }
            }
        }
        Duration took = Duration.between(start, Instant.now());
        String text = HttpReport.render(new HttpReport.Run(mode, contenders, samples, wrk == null ? null : wrkVersion,
                pinning.why(), start, took, load(loadBefore), load(load()), git("rev-parse", "--short", "HEAD"),
                git("status", "--porcelain", "--", "../serve", "src/main/java/dev/moroutine/bench/http").isEmpty(),
                INSTALL_HINT));
        Files.writeString(report, text);
        System.out.println();
        System.out.println(HttpReport.summary(contenders, samples, wrk != null, INSTALL_HINT));
        System.out.println("Written: " + report + "; wrk's own output in " + wrkLog + ", the servers' in " + serverLog
                + "; took " + took.toMinutes() + " min " + took.toSecondsPart() + " s");
    }

    /** A server in a JVM of its own, stopped by closing its standard input. */
    static final class ChildServer implements AutoCloseable {

        final Process process;
        final int port;

        private ChildServer(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static ChildServer start(Contender contender, Path log, Pinning pinning) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>();
            command.add(ProcessHandle.current().info().command().orElse("java"));
            command.addAll(SERVER_JVM);
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), HttpServers.class.getName(), contender.name()));
            Files.writeString(log, "=== " + contender.label() + " " + Instant.now() + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            Process process = new ProcessBuilder(pinning.server(command)).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> portLine = CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        if (line.startsWith("port=")) {
                            return line;
                        }
                    }
                    return null;
                } catch (IOException e) {
                    return null;
                }
            });
            try {
                String line = portLine.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                if (line == null) {
                    throw new IOException(contender.label() + " exited before it listened (status " + process.waitFor()
                            + "); see " + log);
                }
                return new ChildServer(process, Integer.parseInt(line.substring("port=".length()).trim()));
            } catch (ExecutionException | TimeoutException | IOException failed) {
                process.destroyForcibly();
                throw failed instanceof IOException io ? io
                        : new IOException(contender.label() + " did not start within " + START_TIMEOUT + "; see " + log, failed);
            }
        }

        /** The CPU time the server JVM has used so far, in ns; -1 if unknown. */
        long cpuNanos() {
            return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
        }

        @Override
        public void close() throws IOException {
            process.getOutputStream().close();
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
                }
            } catch (InterruptedException stop) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Fails unless the server answers the path with 200, the right body and the right media type. */
    static void check(HttpClient client, Contender contender, int port, Endpoint endpoint) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + endpoint.path))
                .timeout(Duration.ofSeconds(10)).build(), BodyHandlers.ofString());
        String type = response.headers().firstValue("content-type").orElse("");
        if (response.statusCode() != 200 || !response.body().equals(endpoint.body()) || !type.startsWith(endpoint.type)) {
            throw new IllegalStateException(contender.label() + " answered " + endpoint.path + " with " + response.statusCode()
                    + ", Content-Type \"" + type + "\" and \"" + response.body() + "\"; expected 200, " + endpoint.type
                    + " and \"" + endpoint.body() + "\"");
        }
    }

    private static Sample measure(Path wrk, Pinning pinning, ChildServer server, Contender contender, Endpoint endpoint, int round,
            Duration length, PrintStream raw) throws IOException, InterruptedException {
        long[] machineBefore = machineTicks();
        long childrenBefore = reapedChildrenTicks();
        long serverBefore = server.cpuNanos();
        long wallBefore = System.nanoTime();
        String output = runWrk(wrk, pinning, server, endpoint, length, raw, contender.label() + " " + endpoint.label + " round " + round);
        double wall = System.nanoTime() - wallBefore;
        long serverAfter = server.cpuNanos();
        long childrenAfter = reapedChildrenTicks();
        long[] machineAfter = machineTicks();
        double serverCores = serverBefore < 0 || serverAfter < 0 ? Double.NaN : (serverAfter - serverBefore) / wall;
        double wrkCores = childrenBefore < 0 || childrenAfter < 0 ? Double.NaN : (childrenAfter - childrenBefore) * 1e7 / wall;
        double otherCores = Double.NaN;
        if (machineBefore != null && machineAfter != null) {
            long total = machineAfter[0] - machineBefore[0];
            long busy = machineAfter[1] - machineBefore[1];
            double busyCores = total == 0 ? 0 : (double) busy / total * Runtime.getRuntime().availableProcessors();
            otherCores = Math.max(0, busyCores - (Double.isNaN(serverCores) ? 0 : serverCores) - (Double.isNaN(wrkCores) ? 0 : wrkCores));
        }
        return new Sample(contender, endpoint, round, Wrk.parse(output), serverCores, wrkCores, otherCores);
    }

    /** Runs wrk against the server's path and returns its output; fails if wrk fails. */
    private static String runWrk(Path wrk, Pinning pinning, ChildServer server, Endpoint endpoint, Duration length, PrintStream raw, String title)
            throws IOException, InterruptedException {
        List<String> command = List.of(wrk.toString(), "-t" + WRK_THREADS, "-c" + CONNECTIONS, "-d" + length.toSeconds() + "s",
                "--latency", "http://127.0.0.1:" + server.port + endpoint.path);
        List<String> pinned = pinning.wrk(command);
        Process process = new ProcessBuilder(pinned).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        raw.println("=== " + title + ": " + String.join(" ", pinned));
        raw.println(output);
        if (status != 0) {
            throw new IOException("wrk exited with status " + status + ":\n" + output);
        }
        return output;
    }

    /** The machine's total and busy ticks (busy: not idle, not waiting for I/O), from {@code /proc/stat}; null elsewhere. */
    private static long[] machineTicks() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long total = 0;
            for (int i = 1; i <= 8 && i < fields.length; i++) {
                total += Long.parseLong(fields[i]);
            }
            return new long[] {total, total - Long.parseLong(fields[4]) - Long.parseLong(fields[5])};
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
    }

    /**
     * The CPU ticks (1/100 s) of this JVM's children that have ended and been waited for (wrk, once
     * it exits), from {@code /proc/self/stat}; -1 elsewhere.
     */
    private static long reapedChildrenTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[13]) + Long.parseLong(fields[14]); // cutime, cstime: fields 16 and 17
        } catch (IOException | RuntimeException unreadable) {
            return -1;
        }
    }

    /** The named executable in a directory of the {@code PATH}, or null. */
    static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static String wrkVersion(Path wrk) {
        try {
            Process process = new ProcessBuilder(wrk.toString(), "-v").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor();
            String first = out.lines().findFirst().orElse("wrk");
            int copyright = first.indexOf(" Copyright");
            return (copyright > 0 ? first.substring(0, copyright) : first).strip();
        } catch (IOException e) {
            return "wrk";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "wrk";
        }
    }

    /** Requests per second, rounded to three significant figures and grouped: {@code 45,100}. */
    static String rate(double perSecond) {
        double rounded = Double.parseDouble(String.format(Locale.ROOT, "%.3g", perSecond));
        return String.format(Locale.ROOT, "%,d", Math.round(rounded));
    }

    /** A latency in µs, shown in µs below 1 ms and in ms above: {@code 640 µs}, {@code 2.05 ms}. */
    static String micros(double micros) {
        return micros < 1000 ? String.format(Locale.ROOT, "%.0f µs", micros) : String.format(Locale.ROOT, "%.3g ms", micros / 1000);
    }

    /** The median of the samples' values. */
    static double median(List<Sample> samples, ToDoubleFunction<Sample> value) {
        double[] sorted = samples.stream().mapToDouble(value).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** The lowest of the samples' values. */
    static double min(List<Sample> samples, ToDoubleFunction<Sample> value) {
        return samples.stream().mapToDouble(value).min().orElse(Double.NaN);
    }

    /** The highest of the samples' values. */
    static double max(List<Sample> samples, ToDoubleFunction<Sample> value) {
        return samples.stream().mapToDouble(value).max().orElse(Double.NaN);
    }
}
