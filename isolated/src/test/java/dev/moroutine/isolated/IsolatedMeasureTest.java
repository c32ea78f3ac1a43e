package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.workers;

import dev.moroutine.Pool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Start-up and round-trip figures of isolated workers, beside threads; not a test, so it runs
 * only when asked:
 * {@code mvn -B -q -pl core,isolated test -Dtest=IsolatedMeasureTest -Dsurefire.failIfNoSpecifiedTests=false -Dmoroutine.measure=true}
 * (the figures are in {@code isolated/target/surefire-reports/dev.moroutine.isolated.IsolatedMeasureTest-output.txt}).
 */
@EnabledIfSystemProperty(named = "moroutine.measure", matches = "true")
class IsolatedMeasureTest {

    private static final int STARTS = 5;
    private static final int WARM_UP = 20_000;
    private static final int ROUND_TRIPS = 50_000;

    @Test
    void measure() throws IOException {
        long[] starts = new long[STARTS];
        for (int i = 0; i < STARTS; i++) {
            long start = System.nanoTime();
            try (Pool pool = Isolated.workers(2)) {
                starts[i] = System.nanoTime() - start;
                pool.run(Jobs.square.call(1));
            }
        }
        Arrays.sort(starts);
        System.out.printf("start-up of a 2-worker isolated pool: min %.0f ms, median %.0f ms, max %.0f ms (%d runs)%n",
                starts[0] / 1e6, starts[STARTS / 2] / 1e6, starts[STARTS - 1] / 1e6, STARTS);
        try (Pool pool = Isolated.workers(1)) {
            report("isolated", pool);
            long child = pool.run(Jobs.pid.call());
            Duration before = ProcessHandle.of(child).orElseThrow().info().totalCpuDuration().orElseThrow();
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
            Duration after = ProcessHandle.of(child).orElseThrow().info().totalCpuDuration().orElseThrow();
            System.out.printf("CPU time of an idle worker JVM over 2 s: %d ms%n", after.minus(before).toMillis());
            Path status = Path.of("/proc", Long.toString(child), "status");
            if (Files.isReadable(status)) {
                System.out.println("memory of a worker JVM after the round trips: " + Files.readAllLines(status).stream()
                        .filter(line -> line.startsWith("VmRSS")).findFirst().orElse("VmRSS unknown").replaceAll("\\s+", " "));
            }
        }
        try (Pool pool = workers(1)) {
            report("thread", pool);
        }
    }

    private static void report(String kind, Pool pool) {
        for (int i = 0; i < WARM_UP; i++) {
            pool.run(Jobs.square.call(i));
        }
        long[] samples = new long[ROUND_TRIPS];
        long start = System.nanoTime();
        for (int i = 0; i < ROUND_TRIPS; i++) {
            long before = System.nanoTime();
            pool.run(Jobs.square.call(i));
            samples[i] = System.nanoTime() - before;
        }
        long total = System.nanoTime() - start;
        Arrays.sort(samples);
        System.out.printf("ping-pong on a %s worker: mean %.1f µs, median %.1f µs, p99 %.1f µs (%d round trips)%n", kind,
                total / 1e3 / ROUND_TRIPS, samples[ROUND_TRIPS / 2] / 1e3, samples[ROUND_TRIPS * 99 / 100] / 1e3, ROUND_TRIPS);
    }
}
