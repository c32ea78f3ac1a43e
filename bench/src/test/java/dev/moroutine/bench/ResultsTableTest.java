package dev.moroutine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.bench.ResultsTable.Row;
import dev.moroutine.bench.ResultsTable.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultsTableTest {

    private static final Shape LATENCY = new Shape(0, "Ping-pong", true);
    private static final Shape THROUGHPUT = new Shape(1, "Pipelined", false);

    private static Row latency(String system, double p50) {
        return new Row(LATENCY, system, p50 * 2, 0.1, p50 * 0.9, p50 * 1.1, p50, p50 * 3, p50 * 5, 1000, 0.05, 200);
    }

    private static Row throughput(String system, double perSecond) {
        return new Row(THROUGHPUT, system, perSecond, perSecond / 100, perSecond * 0.9, perSecond * 1.1,
                Double.NaN, Double.NaN, Double.NaN, 5, Double.NaN, Double.NaN);
    }

    @Test
    void comparesMoroutineWithTheBestJdkExecutorOfEachTable() {
        String text = ResultsTable.render(List.of(
                throughput(Dispatcher.FORK_JOIN_POOL, 4e6),
                latency(Dispatcher.THREAD_POOL_EXECUTOR, 80),
                latency(Dispatcher.MOROUTINE, 0.5),
                latency(Dispatcher.FORK_JOIN_POOL, 40),
                throughput(Dispatcher.MOROUTINE, 8e6),
                throughput(Dispatcher.THREAD_POOL_EXECUTOR, 1e6)));

        assertTrue(text.indexOf("## Ping-pong") < text.indexOf("## Pipelined"), text);
        assertTrue(text.contains("Best JDK executor: ForkJoinPool, p50 40.0 µs"), text);
        assertTrue(text.contains(" 80.0× |"), text); // 40 / 0.5
        assertTrue(text.contains("Best JDK executor: ForkJoinPool, 4.00 M tasks/s"), text);
        assertTrue(text.contains(" 2.00× |"), text); // 8 / 4
        assertTrue(text.contains(" 8.00 ± 0.080 |"), text);
        assertTrue(text.indexOf("| moroutine ") < text.indexOf("| ThreadPoolExecutor "), text);
    }

    @Test
    void formatsThreeSignificantDigits() {
        assertEquals("0.123", ResultsTable.num(0.12345));
        assertEquals("1.23", ResultsTable.num(1.2345));
        assertEquals("12.3", ResultsTable.num(12.345));
        assertEquals("1235", ResultsTable.num(1234.5));
        assertEquals("–", ResultsTable.num(Double.NaN));
    }
}
