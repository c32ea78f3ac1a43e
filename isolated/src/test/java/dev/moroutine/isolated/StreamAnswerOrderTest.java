package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.moroutine.Pool;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming task whose function has returned, its last items still on their way, and the task
 * behind it, which kills its JVM: that task ran, so it must fail with the death, not run again.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StreamAnswerOrderTest {

    @Test
    void theTaskAfterAStreamWhoseItemsAreStillSentIsNotRunAgainWhenItKillsTheJvm(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 5; round++) {
            Path runs = dir.resolve("runs-" + round);
            try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)))) {
                LiveStream<String> items = pool.run(OrderJobs.big.call(60)); // 3.6 MB: more than the 1 MB reply ring
                CompletableFuture<Integer> killer = pool.submit(OrderJobs.recordThenHalt.call(runs.toString()));
                ExecutionException died = assertThrows(ExecutionException.class, () -> killer.get(60, TimeUnit.SECONDS));
                assertInstanceOf(WorkerDiedException.class, died.getCause());
                assertEquals(1, Files.readAllLines(runs).size(), "round " + round + ": the task that killed its JVM ran "
                        + Files.readAllLines(runs).size() + " times; " + died.getCause().getMessage());
                items.close();
            }
        }
    }
}
