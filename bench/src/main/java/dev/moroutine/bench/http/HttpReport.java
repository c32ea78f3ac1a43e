package dev.moroutine.bench.http;

import dev.moroutine.bench.RunInfo;
import dev.moroutine.bench.http.HttpBench.Endpoint;
import dev.moroutine.bench.http.HttpBench.Mode;
import dev.moroutine.bench.http.HttpBench.Sample;
import dev.moroutine.bench.http.HttpServers.Contender;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** {@code HTTP.md}: the HTTP comparison's targets, a table per path and every run. */
final class HttpReport {

    /** serve's requests/s over Netty's that the issue asks for. */
    static final double NETTY_TARGET = 0.8;
    /** serve's requests/s over the JDK server's that the issue asks for. */
    static final double JDK_TARGET = 2.0;

    /** Everything the report says. */
    record Run(Mode mode, List<Contender> contenders, List<Sample> samples, String wrkVersion, String pinning, Instant start, Duration took,
            String loadBefore, String loadAfter, String commit, boolean clean, String installHint) {}

    private HttpReport() {}

    static String render(Run run) {
        List<String> lines = new ArrayList<>();
        Mode mode = run.mode();
        lines.add("# HTTP servers side by side");
        lines.add("");
        lines.add("- Command (from the repository root): `mvn -q -Pbench-http -DskipTests package"
                + ("quick".equals(mode.name()) ? "" : " -Dbench.mode=" + mode.name()) + "`");
        lines.add("- Run: " + run.start().truncatedTo(ChronoUnit.SECONDS) + ", took " + run.took().toMinutes() + " min "
                + run.took().toSecondsPart() + " s");
        lines.add("- Code: commit " + run.commit() + (run.clean() ? "" : ", with uncommitted changes in serve/ or the bench's http package"));
        lines.add("- Machine: " + RunInfo.machine() + "; load average (1 min) " + run.loadBefore() + " at the start, " + run.loadAfter()
                + " at the end. wrk, the server under test and the bench's own JVM share these CPUs: the \"cores\" columns"
                + " say what each took during the measured runs, and \"other\" what the rest of the machine took.");
        lines.add("- CPUs: " + run.pinning() + ".");
        if (run.wrkVersion() != null) {
            lines.add("- Load: " + run.wrkVersion() + ", `wrk -t" + HttpBench.WRK_THREADS + " -c" + HttpBench.CONNECTIONS + " -d"
                    + mode.measure().toSeconds() + "s --latency`, keep-alive, after a " + mode.warmup().toSeconds()
                    + " s warm-up run of each path (the first path measured alternates per round); " + mode.rounds()
                    + " rounds, each starting every server in a fresh JVM"
                    + " (Java " + Runtime.version() + ", " + String.join(" ", HttpBench.SERVER_JVM)
                    + "), in an order rotated from round to round.");
        } else {
            lines.add("- **Not measured: wrk was not found on the PATH.** The servers were started and their answers checked;"
                    + " to measure them, " + run.installHint() + ".");
        }
        lines.add("- Every server answers `" + Hello.PLAINTEXT_PATH + "` with `" + Hello.TEXT + "` (" + Hello.TEXT_TYPE + ") and `"
                + Hello.JSON_PATH + "` with `" + new String(Hello.json(), java.nio.charset.StandardCharsets.UTF_8) + "` ("
                + Hello.JSON_TYPE + ", serialised per request); the bench checks both answers before measuring.");
        for (Contender contender : run.contenders()) {
            lines.add("  - **" + contender.label() + "**: " + contender.setup());
        }
        lines.add("- Medians of the rounds; the spread is the lowest and the highest round. \"per server core\": requests/s"
                + " over the cores the server used, a figure that load elsewhere disturbs less than requests/s.");
        lines.add("");
        if (run.samples().isEmpty()) {
            return String.join("\n", lines) + "\n";
        }
        lines.add("## Targets (measured, not asserted)");
        lines.add("");
        lines.add(targets(run.contenders(), run.samples()));
        for (Endpoint endpoint : Endpoint.values()) {
            lines.add("## " + endpoint.label + " (`" + endpoint.path + "`)");
            lines.add("");
            lines.add(table(run.contenders(), run.samples(), endpoint));
        }
        lines.add("## Every run");
        lines.add("");
        lines.add("| round | server | path | requests/s | p50 | p90 | p99 | cores: server | wrk | other | errors |");
        lines.add("|--:|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (Sample s : run.samples()) {
            lines.add(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f | %d |", s.round(),
                    s.contender().label(), s.endpoint().label, HttpBench.rate(s.wrk().requestsPerSecond()),
                    HttpBench.micros(s.wrk().p50Micros()), HttpBench.micros(s.wrk().p90Micros()),
                    HttpBench.micros(s.wrk().p99Micros()), s.serverCores(), s.wrkCores(), s.otherCores(), s.wrk().errors()));
        }
        return String.join("\n", lines) + "\n";
    }

    /** The targets and the tables, for the terminal. */
    static String summary(List<Contender> contenders, List<Sample> samples, boolean measured, String installHint) {
        if (!measured) {
            return "Not measured: wrk was not found on the PATH; to measure the servers, " + installHint + ".";
        }
        StringBuilder out = new StringBuilder(targets(contenders, samples)).append('\n');
        for (Endpoint endpoint : Endpoint.values()) {
            out.append(endpoint.label).append(" (").append(endpoint.path).append(")\n\n").append(table(contenders, samples, endpoint)).append('\n');
        }
        return out.toString();
    }

    private static String targets(List<Contender> contenders, List<Sample> samples) {
        StringBuilder out = new StringBuilder("| target | " + Endpoint.PLAINTEXT.label + " | " + Endpoint.JSON.label + " |\n|:--|--:|--:|\n");
        target(out, "moroutine serve ≥ " + NETTY_TARGET + "× Netty's requests/s", contenders, samples, Contender.NETTY, NETTY_TARGET);
        target(out, "moroutine serve ≥ " + JDK_TARGET + "× the JDK server's requests/s", contenders, samples, Contender.JDK, JDK_TARGET);
        return out.toString();
    }

    private static void target(StringBuilder out, String name, List<Contender> contenders, List<Sample> samples, Contender peer,
            double wanted) {
        out.append("| ").append(name).append(" |");
        for (Endpoint endpoint : Endpoint.values()) {
            double ratio = ratio(samples, endpoint, peer);
            out.append(' ').append(!contenders.contains(Contender.SERVE) || !contenders.contains(peer) || Double.isNaN(ratio) ? "not run"
                    : String.format(Locale.ROOT, "%.2f× (%s)", ratio, ratio >= wanted ? "met" : "missed")).append(" |");
        }
        out.append('\n');
    }

    /** serve's median requests/s over the peer's. */
    static double ratio(List<Sample> samples, Endpoint endpoint, Contender peer) {
        double serve = HttpBench.median(of(samples, Contender.SERVE, endpoint), s -> s.wrk().requestsPerSecond());
        double other = HttpBench.median(of(samples, peer, endpoint), s -> s.wrk().requestsPerSecond());
        return serve / other;
    }

    private static String table(List<Contender> contenders, List<Sample> samples, Endpoint endpoint) {
        List<String> rows = new ArrayList<>();
        rows.add("| server | requests/s: median (spread) | ÷ Netty | p50 | p99 | cores: server | wrk | other | per server core | errors |");
        rows.add("|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        double netty = HttpBench.median(of(samples, Contender.NETTY, endpoint), s -> s.wrk().requestsPerSecond());
        for (Contender contender : contenders) {
            List<Sample> mine = of(samples, contender, endpoint);
            if (mine.isEmpty()) {
                continue;
            }
            ToDoubleFunction<Sample> rps = s -> s.wrk().requestsPerSecond();
            double median = HttpBench.median(mine, rps);
            double serverCores = HttpBench.median(mine, Sample::serverCores);
            rows.add(String.format(Locale.ROOT, "| %s | %s (%s–%s) | %s | %s | %s | %.2f | %.2f | %.2f | %s | %d |", contender.label(),
                    HttpBench.rate(median), HttpBench.rate(HttpBench.min(mine, rps)), HttpBench.rate(HttpBench.max(mine, rps)),
                    Double.isNaN(netty) ? "" : String.format(Locale.ROOT, "%.2f×", median / netty),
                    HttpBench.micros(HttpBench.median(mine, s -> s.wrk().p50Micros())),
                    HttpBench.micros(HttpBench.median(mine, s -> s.wrk().p99Micros())), serverCores,
                    HttpBench.median(mine, Sample::wrkCores), HttpBench.median(mine, Sample::otherCores),
                    HttpBench.rate(HttpBench.median(mine, s -> s.wrk().requestsPerSecond() / s.serverCores())),
                    mine.stream().mapToLong(s -> s.wrk().errors()).sum()));
        }
        return String.join("\n", rows) + "\n";
    }

    private static List<Sample> of(List<Sample> samples, Contender contender, Endpoint endpoint) {
        return samples.stream().filter(s -> s.contender() == contender && s.endpoint() == endpoint).toList();
    }
}
