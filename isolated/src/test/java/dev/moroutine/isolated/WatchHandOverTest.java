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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A worker JVM's worker thread reads the requests itself while it waits; once it runs a task, what
 * the parent sends for that task (a cancellation, a signal, a stream argument's items) must reach
 * the reader, asleep or awake. Each round does it right after a burst of tasks: one at a time,
 * which leaves the worker thread watching the ring and the reader asleep, or pipelined, which
 * leaves the reader awake, yielding, having just read, and leaving the ring to the worker thread,
 * which reads the next task itself.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class WatchHandOverTest {

    private static final int ROUNDS = 40;
    private static final int BURST = 50;

    /** How a round's burst of tasks goes. */
    enum Burst {
        /** One task at a time: the worker thread reads each itself, the reader goes to sleep. */
        ONE_AT_A_TIME,
        /** All sent, then all awaited: the reader reads them in batches and is still awake after. */
        PIPELINED
    }

    @ParameterizedTest
    @EnumSource(Burst.class)
    void aCancellationReachesATaskTheWorkerThreadReadItself(Burst kind) throws Exception {
        try (Pool pool = Isolated.workers(1); ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            WorkerHandle worker = pool.workers().getFirst();
            for (int round = 0; round < ROUNDS; round++) {
                burst(pool, round, kind);
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

    @ParameterizedTest
    @EnumSource(Burst.class)
    void aSignalReachesATaskTheWorkerThreadReadItself(Burst kind) throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            for (int round = 0; round < ROUNDS; round++) {
                burst(pool, round, kind);
                AbortController controller = new AbortController();
                CompletableFuture<String> waiting = pool.submit(Jobs.awaitAbort.call(controller.signal()));
                List<CompletableFuture<Integer>> behind = sendBehind(pool, round);
                controller.abort("round " + round);
                assertEquals("round " + round, waiting.get(60, TimeUnit.SECONDS));
                awaitBehind(behind, round);
            }
        }
    }

    @Test
    void aPoolClosedWhileItsWorkerThreadWatchesStops() throws Exception {
        for (int round = 0; round < 5; round++) {
            Pool pool = Isolated.workers(1);
            burst(pool, round, Burst.ONE_AT_A_TIME);
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

    @ParameterizedTest
    @EnumSource(Burst.class)
    void aStreamArgumentReachesATaskTheWorkerThreadReadItself(Burst kind) throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            for (int round = 0; round < ROUNDS; round++) {
                burst(pool, round, kind);
                // Its items are sent once it is the current task: after the worker thread has taken it, or about to.
                CompletableFuture<Integer> counted = pool.submit(Jobs.count.call(Jobs.countUp.call(round * 100 + 1)));
                List<CompletableFuture<Integer>> behind = sendBehind(pool, round);
                assertEquals(round * 100 + 1, counted.get(60, TimeUnit.SECONDS), "round " + round);
                awaitBehind(behind, round);
            }
        }
    }

    /** Tasks queued behind a round's task, so sent while it runs or before it starts: none may hold up what it needs. */
    private static List<CompletableFuture<Integer>> sendBehind(Pool pool, int round) {
        List<CompletableFuture<Integer>> behind = new ArrayList<>();
        for (int i = 0; i < round % 3 * BURST; i++) {
            behind.add(pool.submit(Jobs.add.call(i, round)));
        }
        return behind;
    }

    private static void awaitBehind(List<CompletableFuture<Integer>> behind, int round) throws Exception {
        for (int i = 0; i < behind.size(); i++) {
            assertEquals(i + round, behind.get(i).get(60, TimeUnit.SECONDS), "round " + round + ", task " + i);
        }
    }

    private static void burst(Pool pool, int round, Burst kind) throws Exception {
        if (kind == Burst.ONE_AT_A_TIME) {
            for (int i = 0; i < BURST; i++) {
                assertEquals(i + round, pool.submit(Jobs.add.call(i, round)).get(60, TimeUnit.SECONDS));
            }
            return;
        }
        List<CompletableFuture<Integer>> sent = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            sent.add(pool.submit(Jobs.add.call(i, round)));
        }
        for (int i = 0; i < BURST; i++) {
            assertEquals(i + round, sent.get(i).get(60, TimeUnit.SECONDS), "round " + round + ", burst task " + i);
        }
    }
}
