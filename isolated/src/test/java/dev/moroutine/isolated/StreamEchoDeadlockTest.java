package dev.moroutine.isolated;

import static dev.moroutine.stream.Streaming.channel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.stream.LiveStream;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A streaming task that takes a stream argument and emits as it reads: large items fill both rings.
 * The pump must not wait for room in the request ring while the child's reader waits for room in
 * the reply ring, which only the pump empties.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamEchoDeadlockTest {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);

    @Test
    void largeItemsEchoedByAStreamingTaskAllArrive() throws Exception {
        int n = 2_000;
        int rounds = 40;
        String item = "x".repeat(60_000); // one item per message; a ring (1 MiB) holds about 17 of them
        AtomicInteger echoed = new AtomicInteger();
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withHighWaterMark(64)))) {
            CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
                for (int round = 0; round < rounds; round++) {
                    try (LiveStream<String> out = pool.run(FaultJobs.echo.call(channel(Collections.nCopies(n, item))))) {
                        for (String got : out) {
                            assertEquals(item.length(), got.length());
                            echoed.incrementAndGet();
                        }
                    }
                }
            });
            long progressAt = System.nanoTime();
            for (int seen = -1; !echo.isDone(); ) {
                try {
                    echo.get(1, TimeUnit.SECONDS);
                } catch (TimeoutException notYet) {
                    if (echoed.get() != seen) {
                        seen = echoed.get();
                        progressAt = System.nanoTime();
                    } else if (System.nanoTime() - progressAt > STALL_NANOS) {
                        String pump = pumpStack();
                        // Break the wait (the pump gives up on a dead JVM) so that the pool closes.
                        ProcessHandle.current().children().forEach(ProcessHandle::destroyForcibly);
                        fail("no item echoed for 20 s after " + seen + " of " + rounds * n + ": the pump waits for room in the"
                                + " request ring while the child's reader waits for room in the reply ring; the pump is at " + pump);
                    }
                }
            }
            echo.get();
            assertEquals(rounds * n, echoed.get());
        }
    }

    private static String pumpStack() {
        for (var thread : Thread.getAllStackTraces().entrySet()) {
            if (thread.getKey().getName().endsWith("-pump")) {
                StackTraceElement[] stack = thread.getValue();
                return java.util.Arrays.toString(java.util.Arrays.copyOf(stack, Math.min(3, stack.length)));
            }
        }
        return "nowhere";
    }
}
