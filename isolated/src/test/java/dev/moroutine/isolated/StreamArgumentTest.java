package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.stream.Streaming.channel;
import static dev.moroutine.stream.Streaming.map;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Streams and channels given to tasks on worker JVMs: the caller's items cross over the request ring, with credit. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamArgumentTest {

    private static final int WORKERS = 3;
    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(WORKERS, IsolatedOptions.defaults().withPoolOptions(PoolOptions.defaults().withHighWaterMark(32)));
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    private static long[] expected(int n) {
        long[] totals = new long[3];
        for (long i = 0; i < n; i++) {
            totals[0]++;
            totals[1] += i;
            totals[2] += i * i;
        }
        return totals;
    }

    @Test
    void aStreamTaskGivenToATaskInAWorkerJvmIsReadWhole() {
        assertEquals(1000, pool.run(Jobs.count.call(Jobs.countUp.call(1000))));
        assertArrayEquals(expected(100_000), pool.run(StreamJobs.stats.call(Jobs.countUp.call(100_000))));
    }

    @Test
    void aChannelGivenToATaskInAWorkerJvmIsReadWhole() {
        List<Integer> items = IntStream.range(0, 100_000).boxed().toList();
        assertArrayEquals(expected(100_000), pool.run(StreamJobs.stats.call(channel(items))));
    }

    @Test
    void aChannelFannedOutToThreeWorkerJvmsLosesAndDuplicatesNothing() {
        int n = 300_000;
        for (int round = 0; round < 3; round++) {
            Channel<Integer> shared = channel(IntStream.range(0, n).boxed().toList());
            List<Task<long[]>> consumers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                consumers.add(assign(pool.workers().get(w), StreamJobs.stats.call(shared)));
            }
            long[] total = new long[3];
            Set<Long> counts = new HashSet<>();
            for (var future : consumers.stream().map(pool::submit).toList()) {
                long[] part = future.join();
                counts.add(part[0]);
                for (int i = 0; i < 3; i++) {
                    total[i] += part[i];
                }
            }
            assertArrayEquals(expected(n), total, "count, sum and sum of squares of the items the three workers got");
        }
    }

    @Test
    void aTaskThatStopsReadingEarlyReturnsAndTheWorkerGoesOn() {
        for (int i = 0; i < 5; i++) {
            assertEquals(45, pool.run(StreamJobs.firstSum.call(Jobs.countUp.call(1_000_000), 10)));
        }
        assertEquals(49, pool.run(Jobs.square.call(7)));
    }

    @Test
    void aFailingStreamArgumentFailsTheTaskWithItsCause() {
        TaskFailedException failed = assertThrows(TaskFailedException.class,
                () -> pool.run(Jobs.count.call(StreamJobs.failAfter.call(10, "bad source"))));
        assertTrue(String.valueOf(failed.getCause()).contains("bad source"), String.valueOf(failed.getCause()));
        assertEquals(49, pool.run(Jobs.square.call(7)));
    }

    @Test
    void mapOverAnIsolatedPool() {
        List<Task<Integer>> tasks = IntStream.range(0, 2000).mapToObj(Jobs.square::call).toList();
        try (LiveStream<Integer> squares = map(pool, tasks, 64)) {
            assertEquals(IntStream.range(0, 2000).mapToLong(i -> (long) i * i).sum(), squares.mapToLong(i -> i).sum());
        }
    }

    @Test
    void anIsolatedStreamGivenToAnIsolatedTask() {
        assertArrayEquals(expected(50_000), pool.run(StreamJobs.stats.call(StreamJobs.range.call(0, 50_000))));
    }
}
