package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.stream.Streaming.channel;
import static dev.moroutine.stream.Streaming.emitting;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo1;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker JVM's task that returns before the channel's source has an item: its feeder (here, in
 * the caller's JVM) is waiting for the source, or for the channel's lock, when the task completes
 * and its end is closed from the pump. It must take nothing from the source after that: every
 * item goes to the task still reading.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChannelFeederCloseTest {

    private static Pool pool;

    /** Runs in this JVM (the channel's source): waits for the gate, then emits 0 to n - 1. */
    static final StreamMo1<CountDownLatch, Integer> gated = emitting((CountDownLatch gate, Emitter<Integer> out) -> {
        gate.await();
        for (int i = 0; i < 2_000; i++) {
            out.emit(i);
        }
    });

    @BeforeAll
    static void start() {
        pool = Isolated.workers(2, IsolatedOptions.defaults().withPoolOptions(PoolOptions.defaults().withHighWaterMark(32)));
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void aTaskThatReturnsBeforeTheSourceHasAnItemLeavesEveryItemToTheOther() throws Exception {
        long[] expected = new long[3];
        for (long i = 0; i < 2_000; i++) {
            expected[0]++;
            expected[1] += i;
            expected[2] += i * i;
        }
        for (int round = 0; round < 5; round++) {
            CountDownLatch gate = new CountDownLatch(1);
            Channel<Integer> shared = channel(gated.call(gate), 16);
            try {
                CompletableFuture<long[]> reader = pool.submit(assign(pool.workers().get(0), StreamJobs.stats.call(shared)));
                CompletableFuture<Integer> quitter = pool.submit(assign(pool.workers().get(1), StreamJobs.firstSum.call(shared, 0)));
                assertEquals(0, quitter.get(60, TimeUnit.SECONDS)); // returned: its end was closed, the reader's is open
                gate.countDown();
                assertArrayEquals(expected, reader.get(60, TimeUnit.SECONDS),
                        "round " + round + ": count, sum and sum of squares of what the reading task got");
            } finally {
                gate.countDown();
            }
        }
    }
}
