package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.AbortController;
import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream whose forwarder failed it (an item that cannot cross) while its function runs on: its
 * answer is held until the run ends, so to the caller the task still runs, and the caller's ways of
 * stopping a running task (closing the stream, firing its signal) must reach the function, as for
 * any running task, instead of leaving the worker busy until the function ends by itself.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HeldStreamAnswerStopTest {

    private static final IsolatedOptions OPTIONS = IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1));

    @Test
    void closingTheStreamInterruptsItsRunWhileItsAnswerIsHeld(@TempDir Path dir) throws Exception {
        Path failed = dir.resolve("failed");
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            LiveStream<Object> refused = pool.run(OrderJobs.refusedThenAwaitInterrupt.call(failed.toString()));
            awaitFile(failed);
            refused.close(); // cancels the task, which runs (its answer is held): its run must be interrupted
            assertNextRunsSoon(pool, "closing the stream");
        }
    }

    @Test
    void firingTheSignalReachesTheFunctionWhileItsAnswerIsHeld(@TempDir Path dir) throws Exception {
        Path failed = dir.resolve("failed");
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            AbortController controller = new AbortController();
            LiveStream<Object> refused = pool.run(OrderJobs.refusedThenAwaitSignal.call(failed.toString(), controller.signal()));
            awaitFile(failed);
            controller.abort("enough");
            assertNextRunsSoon(pool, "firing its signal");
            refused.close();
        }
    }

    private static void assertNextRunsSoon(Pool pool, String how) throws Exception {
        try {
            assertEquals(9, pool.submit(Jobs.square.call(3)).get(10, TimeUnit.SECONDS));
        } catch (TimeoutException stuck) {
            fail("after " + how + ", the stream's function (whose forwarder had failed it, its answer held) still ran 10 s"
                    + " later: the worker JVM ignored it, so the next task waits for the function to end by itself (30 s)");
        }
    }

    /** Waits, with a deadline, for the worker JVM to write {@code file}: the function saw its stream failed. */
    private static void awaitFile(Path file) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                fail("the function never saw its stream fail");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // a poll of a file another JVM writes, under a deadline
        }
    }
}
