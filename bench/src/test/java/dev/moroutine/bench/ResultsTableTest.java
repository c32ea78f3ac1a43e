package dev.moroutine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.bench.ResultsTable.Role;
import dev.moroutine.bench.ResultsTable.Row;
import dev.moroutine.bench.Targets.Target;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResultsTableTest {

    private static Row row(ResultsTable.Shape shape, String system, Role role, double... perIteration) {
        List<Double> values = new ArrayList<>();
        for (double v : perIteration) {
            values.add(v);
        }
        return Row.of(shape, system, role, values);
    }

    private static List<Row> sample() {
        List<Row> rows = new ArrayList<>();
        rows.add(row(Shapes.PING_PONG, Dispatcher.FORK_JOIN_POOL, Role.PEER, 40, 42, 38).withLatency(40, 60, 80, 1000));
        rows.add(row(Shapes.PING_PONG, Dispatcher.MOROUTINE, Role.MOROUTINE, 0.5, 0.4, 0.6).withLatency(0.5, 0.7, 2, 1000));
        rows.add(row(Shapes.STREAM, Dispatcher.MOROUTINE, Role.MOROUTINE, 8, 10, 9));
        rows.add(row(Shapes.STREAM, Transport.MOROUTINE_16, Role.MOROUTINE, 7, 9, 8));
        rows.add(row(Shapes.STREAM, "ArrayBlockingQueue(16)", Role.PEER, 0.4, 0.5, 0.6));
        rows.add(row(Shapes.STREAM, "JCTools SpscArrayQueue(16), spinning", Role.BOUND, 200, 400, 300));
        rows.add(row(Shapes.STREAM, "SubmissionPublisher (buffer 256)", Role.PEER, 20, 40, 30));
        rows.add(row(Shapes.CPU, CpuBoundBenchmark.SEQUENTIAL, Role.BASELINE, 8, 8, 8));
        rows.add(row(Shapes.CPU, Dispatcher.MOROUTINE, Role.MOROUTINE, 4, 5, 4.5));
        rows.add(row(Shapes.CPU, Dispatcher.FORK_JOIN_POOL, Role.PEER, 4.4, 4.4, 4.4));
        rows.add(row(Shapes.CPU_MIXED, CpuBoundBenchmark.SEQUENTIAL, Role.BASELINE, 40, 40, 40));
        rows.add(row(Shapes.CPU_MIXED, Dispatcher.MOROUTINE, Role.MOROUTINE, 18, 18, 18));
        rows.add(row(Shapes.CPU_MIXED, Dispatcher.FORK_JOIN_POOL, Role.PEER, 20, 20, 20));
        rows.add(row(Shapes.LOCK, "moroutine Mutex", Role.MOROUTINE, 30, 30, 30));
        rows.add(row(Shapes.LOCK, "ReentrantLock", Role.PEER, 15, 15, 15));
        for (int k : Shapes.FAN_OUT_CONSUMERS) {
            rows.add(row(Shapes.fanOut(k), Dispatcher.MOROUTINE, Role.MOROUTINE, k == 8 ? 9 : 10).withShares(100.0 / k - 1, 100.0 / k + 1));
        }
        rows.addAll(ResultsTable.seedRows());
        rows.addAll(PiscinaResults.notRun("Node.js could not be started").rows());
        return ResultsTable.withSpeedUps(rows);
    }

    @Test
    void summarisesEachShapeAgainstItsBestPeer() {
        String text = ResultsTable.summary(sample()).replaceAll(" +", " ");
        assertTrue(text.indexOf("Ping-pong") < text.indexOf("Stream worker"), text);
        // ping-pong: 40 / 0.5
        assertTrue(text.contains("| 0.500 (0.400–0.600) | ForkJoinPool 40.0 (38.0–42.0) | 80.0× |"), text);
        // stream: moroutine 9 (median of 8, 10, 9) vs the spinning queue's 30; the seed's figure beside it
        assertTrue(text.contains("| 0.300× (behind) |"), text);
        assertTrue(text.contains("| 0.746 |"), text);
        // CPU: speed-ups 8 / 4.5 and 8 / 4.4
        assertTrue(text.contains("1.78× (1.60–2.00)"), text);
        assertTrue(text.contains("ForkJoinPool 1.82×"), text);
        assertTrue(text.contains("not run: Node.js could not be started"), text);
    }

    @Test
    void comparesWhatEachSystemKeepsUnderLoad() {
        List<Row> busy = List.of(
                row(Shapes.PING_PONG, Dispatcher.FORK_JOIN_POOL, Role.PEER, 80, 80, 80).withLatency(80, 90, 99, 100),
                row(Shapes.PING_PONG, Dispatcher.MOROUTINE, Role.MOROUTINE, 5, 5, 5).withLatency(5, 6, 7, 100),
                row(Shapes.STREAM, Dispatcher.MOROUTINE, Role.MOROUTINE, 4.5, 4.5, 4.5),
                row(Shapes.STREAM, "ArrayBlockingQueue(16)", Role.PEER, 0.3, 0.3, 0.3),
                row(Shapes.STREAM, "SubmissionPublisher (buffer 256)", Role.PEER, 27, 27, 27));
        String text = ResultsTable.underLoad(sample(), busy, "1 core kept busy by another process").replaceAll(" +", " ");
        // ping-pong: moroutine 0.5 → 5 µs keeps 10%, ForkJoinPool 40 → 80 keeps 50%: it loses more
        assertTrue(text.contains("| 0.500 → 5.00 (10%) | ForkJoinPool 40.0 → 80.0 (50%) | ForkJoinPool: 16.0× | **no** |"), text);
        // stream: moroutine 9 → 4.5 keeps 50%, SubmissionPublisher 30 → 27 keeps 90%; shapes not run busy are left out
        assertTrue(text.contains("| 9.00 → 4.50 (50%) | SubmissionPublisher (buffer 256) 30.0 → 27.0 (90%) |"), text);
        assertFalse(text.contains("CPU-bound"), text);
        assertTrue(text.contains("with 1 core kept busy by another process"), text);
    }

    @ParameterizedTest(name = "moroutine's stream under load {0} M items/s, its ping-pong {1} µs")
    @CsvSource({
        // SubmissionPublisher keeps 27 of 30, ForkJoinPool's ping-pong 40 → 80 µs (50%); moroutine's quiet: 9 and 0.5
        "4.5, 5.0, false, '4.50 vs 27.0 = 0.167×', false, 0 of 2", // 50% and 10%: it loses more on both
        "40, 0.5, true, '40.0 vs 27.0 = 1.48×', true, 2 of 2", // 444% and 100%
        "27, 2.0, true, '27.0 vs 27.0 = 1.00×', false, 1 of 2" // the stream keeps 300%, the ping-pong 25%
    })
    void checksTheTargetsUnderLoad(double stream, double pingPong, boolean streamMet, String streamMeasured,
            boolean keepsMet, String keeping) {
        List<Row> busy = List.of(
                row(Shapes.PING_PONG, Dispatcher.FORK_JOIN_POOL, Role.PEER, 80, 80, 80).withLatency(80, 90, 99, 100),
                row(Shapes.PING_PONG, Dispatcher.MOROUTINE, Role.MOROUTINE, pingPong, pingPong, pingPong)
                        .withLatency(pingPong, pingPong, pingPong, 100),
                row(Shapes.STREAM, Dispatcher.MOROUTINE, Role.MOROUTINE, stream, stream, stream),
                row(Shapes.STREAM, "SubmissionPublisher (buffer 256)", Role.PEER, 27, 27, 27));
        List<Target> targets = Targets.underLoad(sample(), busy, "1 core kept busy");
        Target streamTarget = find(targets, "Stream worker→caller: 20,000 items per stream: moroutine ≥ 1.00× SubmissionPublisher");
        assertEquals("14 (speed, 1 core kept busy)", streamTarget.issue());
        assertEquals(streamMeasured, streamTarget.measured());
        assertEquals(Optional.of(streamMet), streamTarget.met());
        Target keeps = find(targets, "every shape keeps at least the share of its quiet figure that its best peer keeps");
        assertEquals(keeping + " shapes do (the table under load, below)", keeps.measured());
        assertEquals(Optional.of(keepsMet), keeps.met());
        assertEquals(Optional.empty(), find(Targets.underLoad(sample(), List.of(), "1 core kept busy"), "every shape").met(),
                "nothing ran under load: not measured");
    }

    @Test
    void refusesABusyCountTheMachineCannotSpare() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> BenchMain.main(new String[] {"--busy=" + Runtime.getRuntime().availableProcessors()}));
        assertTrue(e.getMessage().contains("from 0 to " + (Runtime.getRuntime().availableProcessors() - 1)), e.getMessage());
    }

    @Test
    void rendersOneTablePerShapeWithSpreadAndShares() {
        String text = ResultsTable.render(sample()).replaceAll(" +", " ");
        assertTrue(text.contains("### Ping-pong latency"), text);
        assertTrue(text.contains("Best peer: ForkJoinPool, 40.0 µs per round trip."), text);
        assertTrue(text.contains("share per consumer"), text);
        assertTrue(text.contains("11.5% – 13.5%"), text); // 8 consumers: 12.5 ± 1
        assertTrue(text.contains(ResultsTable.SEED_NOTE), text);
        assertTrue(text.indexOf("| moroutine ") < text.indexOf("| ArrayBlockingQueue(16) "), text);
    }

    @Test
    void givesEachJvmsCoreToCorePassAndMarksAChangeDuringItsMeasurement() {
        List<Row> rows = List.of(
                row(Shapes.PIPELINED_64, Dispatcher.MOROUTINE, Role.MOROUTINE, 14, 5, 5).withPasses(List.of(
                        new ResultsTable.Pass(33.4, 35), new ResultsTable.Pass(221, 230), new ResultsTable.Pass(34, 224))),
                row(Shapes.PIPELINED_64, Dispatcher.FORK_JOIN_POOL, Role.PEER, 4, 4, 4).withPasses(List.of(
                        new ResultsTable.Pass(Double.NaN, 218), new ResultsTable.Pass(Double.NaN, Double.NaN),
                        new ResultsTable.Pass(40, 52))),
                row(Shapes.PIPELINED_64, "Piscina", Role.PEER, 0.1, 0.1, 0.1));
        String text = ResultsTable.render(rows).replaceAll(" +", " ");
        assertTrue(text.contains("| core to core, ns (per JVM) |"), text);
        assertTrue(text.contains("| 33, 221, 34→224 |"), text); // within half of each other: one figure
        assertTrue(text.contains("| 218, –, 40 |"), text); // a JVM the machine was too busy to measure in
        assertTrue(text.contains("| – | |"), text); // a row not from JMH (Piscina) has none
        assertFalse(ResultsTable.render(sample()).contains("core to core"), "no JVM measured, no column");
        // issue 14's targets give both sides' passes, so that a verdict between JVMs of different states shows as one
        Target pipelined = find(Targets.evaluate(rows, Duration.ofSeconds(250), true), "64 noop tasks in flight: moroutine ≥");
        assertEquals("5.00 vs 4.00 = 1.25× (core to core per JVM: 33, 221, 34→224 ns, against 218, –, 40)", pipelined.measured());
        Target cpu = find(Targets.evaluate(sample(), Duration.ofSeconds(250), true), "CPU-bound: 64 isPrime tests of mixed cost");
        assertFalse(cpu.measured().contains("core to core"), cpu.measured()); // not measured on either side: not given
    }

    @Test
    void checksTheIssuesTargets() {
        List<Target> targets = Targets.evaluate(sample(), Duration.ofSeconds(250), true);
        assertEquals(Optional.of(true), find(targets, "ping-pong").met());
        Target atSixteen = find(targets, "stream worker→caller ≥ 10 M items/s (highWaterMark 16)");
        assertEquals(Optional.of(false), atSixteen.met()); // 8 < 10
        assertEquals("8.00 M items/s", atSixteen.measured(), "issue 4's target reads the highWaterMark 16 row");
        assertEquals(Optional.of(false), find(targets, "Mutex").met()); // 30 / 15 = 2 > 1.5
        assertEquals(Optional.of(true), find(targets, "fan-out").met()); // 9 / 10 = 90%
        assertEquals(Optional.of(true), find(targets, "quick comparison").met());
        assertEquals(Optional.empty(), find(targets, "pipelined").met());
        // issue 14: against one named peer each
        assertEquals(Optional.of(true), find(targets, "one noop task at a time: moroutine ≥ 10.0× ForkJoinPool").met()); // 80×
        assertEquals(Optional.of(false), find(targets, "CPU-bound").met()); // speed-ups 1.78 vs 1.82
        Target mixed = find(targets, "CPU-bound: 64 isPrime tests of mixed cost");
        assertEquals(Optional.of(true), mixed.met(), mixed.measured()); // speed-ups 2.22 vs 2.00, against its own sequential run
        Target stream = find(targets, "Stream worker→caller: 20,000 items per stream: moroutine ≥ 1.50× SubmissionPublisher");
        assertEquals("9.00 vs 30.0 = 0.300×", stream.measured());
        assertEquals(Optional.empty(), find(targets, "Round trip").met());
        String table = Targets.render(targets);
        assertTrue(table.contains("**missed**"), table);
    }

    private static Target find(List<Target> targets, String goal) {
        return targets.stream().filter(t -> t.goal().contains(goal)).findFirst().orElseThrow();
    }

    @Test
    void readsTheClusterShapesAndChecksIssue12sTargets(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cluster.properties");
        double[][] perRound = {{30_000, 40_000, 35_000}, {3_000, 3_500, 2_500}, {1.5e6, 1.8e6, 1.6e6}, {2.0e6, 2.2e6, 1.9e6},
            {2.5e6, 2.6e6, 2.4e6}};
        ClusterResults.write(file, perRound, 5000, 12.5);
        Properties p = new Properties();
        try (var in = java.nio.file.Files.newBufferedReader(file)) {
            p.load(in);
        }
        ClusterResults results = ClusterResults.parse(p);
        Row stream = results.rows().stream()
                .filter(r -> r.shape().equals(Shapes.CLUSTER_STREAM) && r.system().equals(ClusterResults.MOROUTINE))
                .findFirst().orElseThrow();
        assertEquals(1.6, stream.median(), 1e-9);
        assertEquals(1.5, stream.low(), 1e-9);
        assertTrue(results.summary().contains("3 rounds"), results.summary());
        List<Target> targets = Targets.evaluate(results.rows(), Duration.ofSeconds(250), false);
        assertEquals(Optional.of(true), find(targets, "pipelined noop within 1.2×").met()); // 35,000 vs 3,000
        Target streamTarget = find(targets, "stream member→caller within 1.2×");
        assertEquals(Optional.of(false), streamTarget.met()); // 1.6 / 2.0 = 0.8 < 1 / 1.2
        assertEquals("1.60 vs 2.00 M items/s = 0.800×; 1.25× at highWaterMark 2048", streamTarget.measured());
        assertTrue(ClusterResults.notRun("no members").rows().stream().allMatch(r -> !r.ran()));
    }

    @Test
    void readsPiscinasResults() {
        Properties p = new Properties();
        p.setProperty("available", "true");
        p.setProperty("node", "v20.0.0");
        p.setProperty("piscina", "5.3.2");
        p.setProperty("mode", "quick");
        p.setProperty("pingPong.rounds", "60,70,80");
        p.setProperty("pingPong.p50", "70");
        p.setProperty("pingPong.p90", "90");
        p.setProperty("pingPong.p99", "120");
        p.setProperty("pingPong.samples", "3000");
        p.setProperty("pipelined64.rounds", "15000,16000");
        p.setProperty("pipelined64.tuned.rounds", "140000,150000");
        p.setProperty("cpu.sequential.rounds", "0.2,0.2,0.2");
        p.setProperty("cpu.pool.rounds", "0.4,0.5,0.4");
        p.setProperty("cpu.threads", "2");
        PiscinaResults results = PiscinaResults.parse(p);
        assertTrue(results.available());
        Row pingPong = results.rows().stream().filter(r -> r.shape().equals(Shapes.PING_PONG)).findFirst().orElseThrow();
        assertEquals(70, pingPong.median());
        assertEquals(60, pingPong.low());
        Row tuned = results.rows().stream().filter(r -> r.system().contains("concurrentTasksPerWorker")).findFirst().orElseThrow();
        assertEquals(0.145, tuned.median(), 1e-9);
        Row cpu = results.rows().stream().filter(r -> r.shape().equals(Shapes.CPU)).findFirst().orElseThrow();
        assertEquals(0.5, cpu.speedUp(), 1e-9);

        p.setProperty("available", "false");
        p.setProperty("reason", "npm install failed");
        PiscinaResults missing = PiscinaResults.parse(p);
        assertFalse(missing.available());
        assertTrue(missing.rows().stream().allMatch(r -> r.note().equals("not run: npm install failed")));
    }

    @Test
    void drawsTheChart(@TempDir Path dir) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path png = dir.resolve("chart.png");
        Chart.write(sample(), "test", png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertTrue(image.getWidth() > 1000 && image.getHeight() > 1000, image.getWidth() + "×" + image.getHeight());
        assertTrue(Files.size(png) > 10_000);
    }

    @Test
    void formatsThreeSignificantDigits() {
        assertEquals("0.123", ResultsTable.num(0.12345));
        assertEquals("1.23", ResultsTable.num(1.2345));
        assertEquals("12.3", ResultsTable.num(12.345));
        assertEquals("1235", ResultsTable.num(1234.5));
        assertEquals("0.0012", ResultsTable.num(0.00123));
        assertEquals("–", ResultsTable.num(Double.NaN));
    }
}
