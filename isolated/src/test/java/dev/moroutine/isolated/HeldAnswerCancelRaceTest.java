package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streams whose forwarder fails them (an item that cannot cross) while their function runs on,
 * closed by their caller at seeded moments: before they start in the worker JVM (queued there behind
 * another), while their answer is held, or after it. Each is answered once, and the value task
 * behind them runs, once, with its own timer.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HeldAnswerCancelRaceTest {

    private static final IsolatedOptions OPTIONS = IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1));

    @Test
    void streamsClosedAroundTheirHeldAnswerAllSettleAndTheNextTaskRuns() throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            for (int i = 0; i < 60; i++) {
                LiveStream<Object> first = pool.run(OrderJobs.refusedThenRun.call(random.nextInt(20)));
                LiveStream<Object> second = pool.run(OrderJobs.refusedThenRun.call(random.nextInt(20)));
                LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(25))); // a seeded moment, not a wait
                if (random.nextBoolean()) {
                    second.close();
                    first.close();
                } else {
                    first.close();
                    LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(10)));
                    second.close();
                }
                try {
                    assertEquals(9, pool.submit(Jobs.square.call(3).withTimeout(Duration.ofSeconds(5))).get(30, TimeUnit.SECONDS),
                            "seed " + seed + ", round " + i);
                } catch (TimeoutException stuck) {
                    fail("seed " + seed + ", round " + i + ": the task behind two closed streams never answered (active count "
                            + pool.workers().get(0).activeCount() + ")");
                }
                // A stream whose run ended before its forwarder failed it may be answered after the task behind it.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (pool.workers().get(0).activeCount() != 0) {
                    if (System.nanoTime() > deadline) {
                        fail("seed " + seed + ", round " + i + ": a closed stream was never answered");
                    }
                    Thread.onSpinWait();
                }
            }
        }
    }
}
