package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
 * A stream failed by its forwarder (its answer held) whose function then kills its worker thread (a
 * stack overflow, within the same JVM): the held answer goes as the thread leaves the run, once, and
 * the task behind it runs once, on the new thread.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HeldAnswerDeathTest {

    @Test
    void aHeldAnswerGoesWhenTheWorkerThreadDiesInTheRun(@TempDir Path dir) throws Exception {
        Path failed = dir.resolve("failed");
        Path runs = dir.resolve("runs");
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)))) {
            long pid = pool.run(Jobs.pid.call());
            LiveStream<Object> stream = pool.run(OrderJobs.refusedThenOverflow.call(failed.toString()));
            CompletableFuture<Integer> next = pool.submit(Jobs.record.call(runs.toString(), 5));
            CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
                int n = 0;
                for (Object ignored : stream) {
                    n++;
                }
                return n;
            });
            try {
                read.get(60, TimeUnit.SECONDS);
                fail("the stream ended normally");
            } catch (ExecutionException settled) {
                String why = String.valueOf(settled.getCause());
                assertTrue(why.contains("cannot cross"), why);
            }
            assertEquals(5, next.get(60, TimeUnit.SECONDS));
            assertEquals(List.of("5"), Files.readAllLines(runs), "it runs once");
            assertEquals(pid, pool.run(Jobs.pid.call()), "the worker thread died, not its JVM");
        }
    }
}
