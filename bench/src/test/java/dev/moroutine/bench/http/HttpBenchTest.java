package dev.moroutine.bench.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.bench.http.HttpBench.Endpoint;
import dev.moroutine.bench.http.HttpBench.Mode;
import dev.moroutine.bench.http.HttpBench.Sample;
import dev.moroutine.bench.http.HttpServers.Contender;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The HTTP comparison without wrk: every server answers both paths right, and wrk's output and the report are read and written. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpBenchTest {

    static final String WRK_OUTPUT = """
            Running 5s test @ http://127.0.0.1:40000/plaintext
              1 threads and 64 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency     1.52ms    3.01ms  97.20ms   95.00%
                Req/Sec    26.83k     2.11k   30.10k    80.00%
              Latency Distribution
                 50%  640.00us
                 75%    1.10ms
                 90%    2.05ms
                 99%   17.70ms
              133512 requests in 5.00s, 12.73MB read
              Socket errors: connect 0, read 2, write 0, timeout 1
              Non-2xx or 3xx responses: 4
            Requests/sec:  26702.40
            Transfer/sec:      2.55MB
            """;

    @Test
    void everyServerAnswersBothPaths() throws Exception {
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (Contender contender : Contender.values()) {
                try (HttpServers.Running server = contender.start()) {
                    for (int i = 0; i < 3; i++) { // keep-alive: the same connection again
                        for (Endpoint endpoint : Endpoint.values()) {
                            HttpBench.check(client, contender, server.port(), endpoint);
                        }
                    }
                }
            }
        }
    }

    @Test
    void readsWrkOutput() {
        Wrk wrk = Wrk.parse(WRK_OUTPUT);
        assertEquals(26702.40, wrk.requestsPerSecond(), 1e-9);
        assertEquals(133512, wrk.requests());
        assertEquals(640, wrk.p50Micros(), 1e-9);
        assertEquals(2050, wrk.p90Micros(), 1e-9);
        assertEquals(17700, wrk.p99Micros(), 1e-9);
        assertEquals(7, wrk.errors());
    }

    @Test
    void reportsTargetsAndEveryRun() {
        List<Sample> samples = new ArrayList<>();
        double[] rates = {40_000, 45_000, 20_000, 15_000};
        for (int round = 1; round <= 2; round++) {
            for (Contender contender : Contender.values()) {
                for (Endpoint endpoint : Endpoint.values()) {
                    double rate = rates[contender.ordinal()] * round;
                    samples.add(new Sample(contender, endpoint, round, new Wrk(rate, (long) rate * 5, 600, 900, 2_000, 0),
                            0.9, 0.4, 0.1));
                }
            }
        }
        String report = HttpReport.render(new HttpReport.Run(Mode.named("quick"), List.of(Contender.values()), samples,
                "wrk 4.1.0 [epoll]", "pinned with taskset: wrk on CPU 0, each server on CPU 1",
                Instant.parse("2026-12-01T03:00:00Z"), Duration.ofMinutes(4), "0.50", "0.70", "abc1234",
                true, "install it"));
        assertTrue(report.contains("| moroutine serve ≥ 0.8× Netty's requests/s | 0.89× (met) | 0.89× (met) |"), report);
        assertTrue(report.contains("| moroutine serve ≥ 2.0× the JDK server's requests/s | 2.67× (met) | 2.67× (met) |"), report);
        assertTrue(report.contains("| moroutine serve | 60,000 (40,000–80,000) | 0.89× | 600 µs | 2.00 ms |"), report);
        assertTrue(report.contains("| 2 | JDK HttpServer | JSON | 30,000 | 600 µs | 900 µs | 2.00 ms |"), report);
        assertTrue(report.contains("`mvn -q -Pbench-http -DskipTests package`"), report);
        assertTrue(report.contains("- CPUs: pinned with taskset: wrk on CPU 0, each server on CPU 1."), report);
    }

    @Test
    void pinsWrkToTheFirstAllowedCpuAndTheServersToTheOthers() {
        assertEquals(List.of(0, 1, 4, 5, 6), Pinning.parseList("0-1,4-6"));
        Pinning none = Pinning.choose(null);
        assertEquals(List.of("wrk", "-t1"), none.wrk(List.of("wrk", "-t1")));
        assertTrue(none.why().startsWith("not pinned: taskset (util-linux) was not found on the PATH"), none.why());
        Pinning pinned = new Pinning(java.nio.file.Path.of("taskset"), "0", "1", "pinned");
        assertEquals(List.of("taskset", "-c", "0", "wrk"), pinned.wrk(List.of("wrk")));
        assertEquals(List.of("taskset", "-c", "1", "java"), pinned.server(List.of("java")));
    }

    @Test
    void saysHowToInstallWrkWhenItIsMissing() {
        String report = HttpReport.render(new HttpReport.Run(Mode.named("quick"), List.of(Contender.values()), List.of(), null,
                "not pinned", Instant.parse("2026-12-01T03:00:00Z"), Duration.ofSeconds(20), "0.50", "0.70", "abc1234", true,
                "install it (apt-get install wrk)"));
        assertTrue(report.contains("Not measured: wrk was not found on the PATH"), report);
        assertTrue(report.contains("apt-get install wrk"), report);
    }

    @Test
    void aBadArgumentIsRefusedWithWhatItAccepts() {
        IllegalArgumentException pin = assertThrows(IllegalArgumentException.class, () -> HttpBench.main(new String[] {"--pin=sometimes"}));
        assertEquals("unknown pinning \"--pin=sometimes\"; use --pin=auto or --pin=off", pin.getMessage());
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class, () -> HttpBench.main(new String[] {"--fast"}));
        assertEquals("unknown argument \"--fast\"; expected --mode=, --results=, --servers= or --pin=", other.getMessage());
    }
}
