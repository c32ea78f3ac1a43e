package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming task whose item could not cross while its function runs on: its forwarder fails the
 * stream's pipe at once, and the task is answered only when the run ends. The task behind it has
 * not started: its timeout runs from its own start, and a death before then puts it back rather
 * than failing it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EarlyStreamAnswerTest {

    private static final IsolatedOptions OPTIONS = IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1));

    @Test
    void theTaskBehindAStreamFailedWhileItsFunctionRunsTimesOutFromItsOwnStart() throws Exception {
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            LiveStream<Object> refused = pool.run(OrderJobs.refusedThenRun.call(3_000));
            CompletableFuture<Integer> next = pool.submit(Jobs.square.call(3).withTimeout(Duration.ofSeconds(1)));
            try {
                assertEquals(9, next.get(60, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                throw new AssertionError("a task that runs for microseconds failed though its function started only when the"
                        + " stream's function returned, 3 s after the stream's answer: " + e.getCause(), e.getCause());
            }
            refused.close();
        }
    }

    @Test
    void theTaskBehindAStreamFailedWhileItsFunctionRunsIsRunOnTheNewJvmWhenThatFunctionKillsIt(@TempDir Path dir)
            throws Exception {
        Path runs = dir.resolve("runs");
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            LiveStream<Object> refused = pool.run(OrderJobs.refusedThenHalt.call(3_000));
            CompletableFuture<Integer> next = pool.submit(Jobs.record.call(runs.toString(), 5));
            try {
                assertEquals(5, next.get(60, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                throw new AssertionError("a task that had not started when the JVM died was failed (it ran "
                        + (Files.exists(runs) ? Files.readAllLines(runs).size() : 0) + " times): " + e.getCause(), e.getCause());
            }
            assertEquals(List.of("5"), Files.readAllLines(runs), "it runs once, on the new JVM");
            refused.close();
        }
    }
}
