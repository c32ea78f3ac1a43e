package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming task whose function has returned, its last items still on their way, and the tasks
 * behind it: the next one runs from then (its timeout, its credit), and a death then fails the
 * stream (its items are lost; its function ran, so it is not run again) and the task that ran,
 * once each, while the tasks after it run on the new JVM. {@link OrderJobs.Stall} holds a stream's
 * items in its JVM for good, so that they surely are on their way when it dies.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamAnswerOrderTest {

    private static final IsolatedOptions OPTIONS = IsolatedOptions.defaults().register(OrderJobs.Stall.class)
            .withCrashLimit(1_000, Duration.ofSeconds(1));

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

    @Test
    void aStreamWhoseItemsAreOnTheirWayWhenItsJvmDiesFailsOnceAndTheTasksBehindRunOnce(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 5; round++) {
            Path streamRuns = dir.resolve("stream-" + round);
            Path killerRuns = dir.resolve("killer-" + round);
            Path afterRuns = dir.resolve("after-" + round);
            try (Pool pool = Isolated.workers(1, OPTIONS)) {
                LiveStream<Object> stalled = pool.run(OrderJobs.recordThenStall.call(streamRuns.toString()));
                CompletableFuture<Integer> killer = pool.submit(OrderJobs.recordThenHalt.call(killerRuns.toString()));
                CompletableFuture<Integer> after = pool.submit(Jobs.record.call(afterRuns.toString(), round));
                ExecutionException died = assertThrows(ExecutionException.class, () -> killer.get(60, TimeUnit.SECONDS));
                String killed = assertInstanceOf(WorkerDiedException.class, died.getCause()).getMessage();
                assertTrue(killed.contains(" while running ") && killed.contains("OrderJobs#recordThenHalt"), killed);
                String lost = lostItems(stalled).getMessage();
                assertTrue(lost.contains(" while the items of ") && lost.contains("OrderJobs#recordThenStall")
                        && lost.contains(" were on their way (its function had ended); a new JVM replaces it."), lost);
                assertEquals(round, after.get(60, TimeUnit.SECONDS), "the task behind runs on the new JVM");
                assertEquals(List.of("ran"), Files.readAllLines(streamRuns), "the stream runs once");
                assertEquals(List.of("ran"), Files.readAllLines(killerRuns), "the task that killed its JVM runs once");
                assertEquals(List.of(String.valueOf(round)), Files.readAllLines(afterRuns), "the task behind runs once");
            }
        }
    }

    @Test
    void theTaskAfterAStreamWhoseItemsAreOnTheirWayTimesOutFromItsOwnStart(@TempDir Path dir) throws Exception {
        Path streamRuns = dir.resolve("stream");
        Path afterRuns = dir.resolve("after");
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            LiveStream<Object> stalled = pool.run(OrderJobs.recordThenStall.call(streamRuns.toString()));
            CompletableFuture<Integer> runaway = pool.submit(Jobs.spin.call().withTimeout(Duration.ofMillis(300)));
            CompletableFuture<Integer> after = pool.submit(Jobs.record.call(afterRuns.toString(), 7));
            // Were its timer started only by the stream's answer, which never comes, it would spin on.
            ExecutionException late = assertThrows(ExecutionException.class, () -> runaway.get(60, TimeUnit.SECONDS));
            assertInstanceOf(TimeoutException.class, late.getCause());
            String lost = lostItems(stalled).getMessage();
            assertTrue(lost.contains(" was killed because ") && lost.contains("Jobs#spin") && lost.contains(" ran over its timeout")
                    && lost.contains(" while the items of ") && lost.contains("OrderJobs#recordThenStall"), lost);
            assertEquals(7, after.get(60, TimeUnit.SECONDS), "the task behind runs on the new JVM");
            assertEquals(List.of("ran"), Files.readAllLines(streamRuns), "the stream runs once");
            assertEquals(List.of("7"), Files.readAllLines(afterRuns), "the task behind runs once");
        }
    }

    @Test
    void theStreamAfterAStreamWhoseItemsAreOnTheirWayGetsItsCredit(@TempDir Path dir) throws Exception {
        Path killerRuns = dir.resolve("killer");
        try (Pool pool = Isolated.workers(1, OPTIONS.withPoolOptions(PoolOptions.defaults().withHighWaterMark(4)))) {
            LiveStream<Object> stalled = pool.run(OrderJobs.recordThenStall.call(dir.resolve("stream").toString()));
            LiveStream<String> next = pool.run(OrderJobs.big.call(40)); // ten times its high-water mark: it needs credit
            CompletableFuture<Integer> read = OrderJobs.readBig(next);
            assertEquals(40, read.get(60, TimeUnit.SECONDS));
            CompletableFuture<Integer> killer = pool.submit(OrderJobs.recordThenHalt.call(killerRuns.toString()));
            assertThrows(ExecutionException.class, () -> killer.get(60, TimeUnit.SECONDS));
            assertTrue(lostItems(stalled).getMessage().contains(" were on their way "));
            assertEquals(List.of("ran"), Files.readAllLines(killerRuns), "the task that killed its JVM runs once");
        }
    }

    /** Reads a {@link OrderJobs#recordThenStall} stream: "first", unless it was held too, then the death. */
    private static WorkerDiedException lostItems(LiveStream<Object> stalled) {
        Iterator<Object> it = stalled.iterator();
        for (int read = 0; ; read++) {
            try {
                if (!it.hasNext()) {
                    fail("the stream ended, its last item never sent");
                }
                assertEquals("first", it.next());
                assertEquals(0, read, "one item before the stall");
            } catch (TaskFailedException failed) {
                return assertInstanceOf(WorkerDiedException.class, failed.getCause());
            }
        }
    }
}
