package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.AbortController;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker JVM's worker thread reads the requests itself while it waits, and its reader sleeps
 * then; once the worker thread runs a task, what the parent sends for that task (a cancellation, a
 * signal) must wake the reader. Each round does it right after a burst of back-to-back tasks, which
 * leaves the worker thread watching the ring and the reader asleep, so that the long task is read
 * by the worker thread itself.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class WatchHandOverTest {

    private static final int ROUNDS = 40;
    private static final int BURST = 50;

    @Test
    void aCancellationReachesATaskTheWorkerThreadReadItself() throws Exception {
        try (Pool pool = Isolated.workers(1); ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            WorkerHandle worker = pool.workers().getFirst();
            for (int round = 0; round < ROUNDS; round++) {
                burst(pool, round);
                CompletableFuture<String> waiting = pool.submit(Jobs.awaitInterrupt.call(gate.getLocalPort()));
                try (Socket started = gate.accept()) {
                    assertEquals(1, started.getInputStream().read(), "round " + round + ": the task has started");
                }
                assertTrue(waiting.cancel(true), "round " + round);
                // Only an interrupted task lets the next one run: the cancellation was read while it ran.
                assertEquals(round * round, pool.submit(Jobs.square.call(round)).get(60, TimeUnit.SECONDS), "round " + round);
                assertEquals(0, worker.activeCount(), "round " + round);
            }
        }
    }

    @Test
    void aSignalReachesATaskTheWorkerThreadReadItself() throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            for (int round = 0; round < ROUNDS; round++) {
                burst(pool, round);
                AbortController controller = new AbortController();
                CompletableFuture<String> waiting = pool.submit(Jobs.awaitAbort.call(controller.signal()));
                // Queued behind it, so sent while it runs or before it starts: the abort must not wait for them.
                List<CompletableFuture<Integer>> behind = new ArrayList<>();
                for (int i = 0; i < round % 3 * BURST; i++) {
                    behind.add(pool.submit(Jobs.add.call(i, round)));
                }
                controller.abort("round " + round);
                assertEquals("round " + round, waiting.get(60, TimeUnit.SECONDS));
                for (int i = 0; i < behind.size(); i++) {
                    assertEquals(i + round, behind.get(i).get(60, TimeUnit.SECONDS), "round " + round + ", task " + i);
                }
            }
        }
    }

    @Test
    void aPoolClosedWhileItsWorkerThreadWatchesStops() throws Exception {
        for (int round = 0; round < 5; round++) {
            Pool pool = Isolated.workers(1);
            burst(pool, round);
            // STOP reaches the worker thread, which watches: it must wake the reader, which stops the JVM.
            CompletableFuture.runAsync(pool::close).get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void tasksAssignedOneAfterAnotherAcrossTheHandOverAllRunInOrder() throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            WorkerHandle worker = pool.workers().getFirst();
            for (int round = 0; round < ROUNDS; round++) {
                CompletableFuture<?>[] tasks = new CompletableFuture<?>[BURST];
                for (int i = 0; i < BURST; i++) {
                    tasks[i] = pool.submit(assign(worker, Jobs.square.call(i)));
                }
                for (int i = 0; i < BURST; i++) {
                    assertEquals(i * i, tasks[i].get(60, TimeUnit.SECONDS), "round " + round + ", task " + i);
                }
            }
        }
    }

    /** Tasks one at a time: the worker thread reads each itself, the reader goes to sleep. */
    private static void burst(Pool pool, int round) throws Exception {
        for (int i = 0; i < BURST; i++) {
            assertEquals(i + round, pool.submit(Jobs.add.call(i, round)).get(60, TimeUnit.SECONDS));
        }
    }
}
