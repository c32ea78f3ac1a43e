package dev.moroutine.isolated;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Stream throughput from a worker JVM; not a test, so it runs only when asked:
 * {@code mvn -B -pl core,isolated test -Dtest=StreamMeasureTest -Dsurefire.failIfNoSpecifiedTests=false -Dmoroutine.measure=true}
 * (optionally {@code -Ditems=} per stream, {@code -Dhwm=} for one high-water mark).
 */
@EnabledIfSystemProperty(named = "moroutine.measure", matches = "true")
class StreamMeasureTest {

    @Test
    void measure() {
        for (int highWaterMark : Integer.getInteger("hwm") != null ? new int[] {Integer.getInteger("hwm")} : new int[] {16, 1024, 4096}) {
            try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults()
                    .withPoolOptions(PoolOptions.defaults().withHighWaterMark(highWaterMark)))) {
                for (int round = 0; round < 5; round++) {
                    int n = Integer.getInteger("items", 2_000_000);
                    long start = System.nanoTime();
                    long sum = 0;
                    try (LiveStream<Integer> items = pool.run(StreamJobs.range.call(0, n))) {
                        for (Iterator<Integer> it = items.iterator(); it.hasNext(); ) {
                            sum += it.next();
                        }
                    }
                    long nanos = System.nanoTime() - start;
                    if (sum != (long) n * (n - 1) / 2) {
                        throw new AssertionError(sum);
                    }
                    System.out.printf("high-water mark %d: %.2f M items/s, active %d%n", highWaterMark, n * 1e3 / nanos,
                            pool.workers().get(0).activeCount());
                }
            }
        }
    }
}
