package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pool stopped while a stream's answer is held (its function runs on, ignoring interrupts) and
 * more streams wait in the worker JVM: close() lets each run and answers them all; terminate()
 * settles them all at once, and neither hangs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HeldAnswerStopTest {

    private static final IsolatedOptions OPTIONS = IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1));

    @Test
    void closeAnswersAHeldStreamAndThoseQueuedBehindIt() throws Exception {
        List<CompletableFuture<Integer>> reads = new ArrayList<>();
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            for (int i = 0; i < 4; i++) {
                reads.add(read(pool.run(OrderJobs.refusedThenRun.call(300))));
            }
        }
        for (CompletableFuture<Integer> read : reads) {
            ExecutionException failed = assertThrows(ExecutionException.class, () -> read.get(30, TimeUnit.SECONDS));
            assertTrue(String.valueOf(failed.getCause()).contains("cannot cross"), String.valueOf(failed.getCause()));
        }
    }

    @Test
    void terminateSettlesAHeldStreamAndThoseQueuedBehindIt() throws Exception {
        List<CompletableFuture<Integer>> reads = new ArrayList<>();
        Pool pool = Isolated.workers(1, OPTIONS);
        try {
            for (int i = 0; i < 4; i++) {
                reads.add(read(pool.run(OrderJobs.refusedThenRun.call(5_000))));
            }
        } finally {
            pool.terminate();
        }
        for (CompletableFuture<Integer> read : reads) {
            assertThrows(ExecutionException.class, () -> read.get(30, TimeUnit.SECONDS));
        }
    }

    private static CompletableFuture<Integer> read(LiveStream<Object> stream) {
        return CompletableFuture.supplyAsync(() -> {
            int n = 0;
            for (Object ignored : stream) {
                n++;
            }
            return n;
        });
    }
}
