package dev.moroutine.isolated;

import static dev.moroutine.stream.Streaming.channel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams whose items are still crossing when their run has ended, behind which other tasks run:
 * a JVM retiring after its tasks hands over only once they are answered (each task runs once, on
 * one JVM, none lost); and a stream argument of the task behind is fed from its start.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RunEndedRetirementTest {

    @Test
    void aJvmRetiringWhileAStreamsItemsCrossHandsEveryTaskOverOnce(@TempDir Path dir) throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withMaxTasksPerJvm(3))) {
            Set<Long> pids = new HashSet<>();
            for (int round = 0; round < 8; round++) {
                List<LiveStream<Integer>> streams = new ArrayList<>();
                List<CompletableFuture<Integer>> values = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    streams.add(pool.run(OrderJobs.recordThenCount.call(dir.resolve("s" + round + "-" + i).toString(), 3_000)));
                    values.add(pool.submit(Jobs.record.call(dir.resolve("v" + round + "-" + i).toString(), i)));
                }
                List<CompletableFuture<Integer>> reads = streams.stream().map(stream -> CompletableFuture.supplyAsync(() -> {
                    int n = 0;
                    for (Integer item : stream) {
                        assertEquals(n++, item);
                    }
                    return n;
                })).toList();
                for (int i = 0; i < 4; i++) {
                    assertEquals(3_000, reads.get(i).get(60, TimeUnit.SECONDS), "round " + round + ", stream " + i);
                    assertEquals(i, values.get(i).get(60, TimeUnit.SECONDS), "round " + round + ", task " + i);
                    assertEquals(1, Files.readAllLines(dir.resolve("s" + round + "-" + i)).size(), "the stream ran once");
                    assertEquals(1, Files.readAllLines(dir.resolve("v" + round + "-" + i)).size(), "the task ran once");
                }
                pids.add(pool.run(Jobs.pid.call()));
            }
            assertTrue(pids.size() > 1, "the JVMs retired: " + pids);
            assertEquals(List.of(0), pool.workers().stream().map(WorkerHandle::activeCount).toList());
        }
    }

    @Test
    void theTaskBehindAStreamWhoseItemsCrossIsFedItsStreamArgument() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults())) {
            for (int round = 0; round < 20; round++) {
                LiveStream<String> big = pool.run(OrderJobs.big.call(40)); // more than the reply ring: still crossing
                CompletableFuture<Integer> counted = pool.submit(Jobs.count.call(channel(IntStream.range(0, 5_000).boxed().toList())));
                CompletableFuture<Integer> read = OrderJobs.readBig(big);
                assertEquals(5_000, counted.get(60, TimeUnit.SECONDS), "round " + round);
                assertEquals(40, read.get(60, TimeUnit.SECONDS), "round " + round);
            }
        }
    }
}
