package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Pool;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pump's wake-ups (IsolatedWorker's "Threads"): a dispatch leaves a pump asleep while the child
 * owes it a reply, and wakes one that owes nothing. A task dispatched either way must be sent: a
 * wrong skip leaves it unsent and the test times out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PumpWakeTest {

    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(1, IsolatedOptions.defaults());
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    /** The pump sleeps while the blocked task runs: the tasks dispatched meanwhile go when it answers, in order, once each. */
    @RepeatedTest(10)
    void tasksDispatchedWhileTheChildOwesAReplyRunOnceInOrderWhenItAnswers(@TempDir Path directory) throws Exception {
        Path runs = directory.resolve("runs");
        int queued = 100;
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            CompletableFuture<Integer> blocked = pool.submit(Jobs.block.call(gate.getLocalPort()));
            List<CompletableFuture<Integer>> behind = new ArrayList<>();
            try (Socket started = gate.accept()) {
                assertEquals(1, started.getInputStream().read(), "the task has started");
                for (int i = 0; i < queued; i++) {
                    behind.add(pool.submit(Jobs.record.call(runs.toString(), i)));
                }
                started.getOutputStream().write(1); // lets the blocked task return
            }
            assertEquals(gate.getLocalPort(), blocked.get(60, TimeUnit.SECONDS));
            for (int i = 0; i < queued; i++) {
                assertEquals(i, behind.get(i).get(60, TimeUnit.SECONDS));
            }
        }
        assertEquals(IntStream.range(0, queued).mapToObj(Integer::toString).toList(), Files.readAllLines(runs),
                "each task ran exactly once, in order");
    }

    /** One at a time: the pump owes nothing when each task comes, so each dispatch must wake it. */
    @Test
    void tasksOneAtATimeEachWakeThePump() {
        for (int i = 0; i < 5_000; i++) {
            assertEquals((i % 1000) * (i % 1000), pool.run(Jobs.square.call(i % 1000)), "task " + i);
        }
    }

    /** Many threads, each with 64 tasks in flight: the pump sleeps now owing replies, now not. */
    @Test
    void pipelinedTasksFromManyThreadsAllSettleExactly() throws Exception {
        int threads = 4;
        int tasks = 20_000;
        List<CompletableFuture<Long>> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int offset = t * tasks;
            callers.add(CompletableFuture.supplyAsync(() -> {
                ArrayDeque<Future<Integer>> window = new ArrayDeque<>();
                long sum = 0;
                try {
                    for (int i = 0; i < tasks; i++) {
                        if (window.size() == 64) {
                            sum += window.poll().get(60, TimeUnit.SECONDS);
                        }
                        window.add(pool.submit(Jobs.add.call(offset, i)));
                    }
                    for (Future<Integer> last; (last = window.poll()) != null; ) {
                        sum += last.get(60, TimeUnit.SECONDS);
                    }
                } catch (Exception failed) {
                    throw new IllegalStateException(failed);
                }
                return sum;
            }, Thread::startVirtualThread));
        }
        for (int t = 0; t < threads; t++) {
            long offset = (long) t * tasks;
            assertEquals(offset * tasks + (long) tasks * (tasks - 1) / 2, callers.get(t).get(100, TimeUnit.SECONDS), "caller " + t);
        }
    }
}
