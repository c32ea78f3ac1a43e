package dev.moroutine.isolated;

import static dev.moroutine.stream.Streaming.channel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task sent while the only tasks in flight are streams whose run has ended (their items still on
 * their way, held for good by {@link OrderJobs.Stall}): the child runs it at once, so the pump
 * must start it at once too (its timer, its stream arguments), not when the stream is answered.
 * A value task run in between makes sure the stream's run end was read before the task is sent.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RunEndedStartTest {

    private static final IsolatedOptions OPTIONS = IsolatedOptions.defaults().register(OrderJobs.Stall.class)
            .withCrashLimit(1_000, Duration.ofSeconds(1));

    @Test
    void aTaskSentBehindOnlyAFinishedStreamTimesOut(@TempDir Path dir) throws Exception {
        Pool pool = Isolated.workers(1, OPTIONS);
        try {
            LiveStream<Object> stalled = pool.run(OrderJobs.recordThenStall.call(dir.resolve("stream").toString()));
            assertEquals(9, pool.submit(Jobs.square.call(3)).get(60, TimeUnit.SECONDS)); // runs after the stream's run ended
            CompletableFuture<Integer> runaway = pool.submit(Jobs.spin.call().withTimeout(Duration.ofMillis(300)));
            ExecutionException late = assertThrows(ExecutionException.class, () -> runaway.get(30, TimeUnit.SECONDS),
                    "a task's timer runs from its start, though a stream's items are still on their way");
            assertInstanceOf(TimeoutException.class, late.getCause());
            stalled.close();
        } finally {
            pool.terminate();
        }
    }

    @Test
    void aTaskSentBehindOnlyAFinishedStreamIsFedItsStreamArgument(@TempDir Path dir) throws Exception {
        Pool pool = Isolated.workers(1, OPTIONS);
        try {
            LiveStream<Object> stalled = pool.run(OrderJobs.recordThenStall.call(dir.resolve("stream").toString()));
            assertEquals(9, pool.submit(Jobs.square.call(3)).get(60, TimeUnit.SECONDS)); // runs after the stream's run ended
            CompletableFuture<Integer> counted = pool.submit(Jobs.count.call(channel(List.of(1, 2, 3))));
            assertEquals(3, counted.get(30, TimeUnit.SECONDS), "a task's stream argument is fed from its start");
            stalled.close();
        } finally {
            pool.terminate();
        }
    }
}
