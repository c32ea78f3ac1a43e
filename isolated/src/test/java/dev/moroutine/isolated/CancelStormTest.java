package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many cancellations of worker-JVM tasks, racing their sending, their start, their end, a close:
 * every task settles once, the active count returns to 0, the worker goes on and close() returns.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CancelStormTest {

    private static final int ROUNDS = 20;
    private static final int TASKS = 300;

    @Test
    void cancellingEveryOtherTaskAsItIsSubmittedSettlesThemAll() throws Exception {
        Pool pool = Isolated.workers(2, IsolatedOptions.defaults());
        try {
            for (int round = 0; round < ROUNDS; round++) {
                List<CompletableFuture<Integer>> tasks = new ArrayList<>();
                for (int i = 0; i < TASKS; i++) {
                    CompletableFuture<Integer> task = pool.submit(Jobs.square.call(i));
                    tasks.add(task);
                    if (i % 2 == (round & 1)) {
                        task.cancel(true);
                    }
                    if (i % 7 == 3) {
                        tasks.get(i / 2).cancel(true); // an older one: sent, queued in the child, running or answered
                    }
                }
                settle(pool, tasks, "round " + round);
            }
        } finally {
            closeWithin(pool, 60);
        }
    }

    @Test
    void cancellingTasksQueuedInTheChildBehindABlockedOneSettlesThemAll() throws Exception {
        Pool pool = Isolated.workers(1, IsolatedOptions.defaults());
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            for (int round = 0; round < 5; round++) {
                CompletableFuture<Integer> blocked = pool.submit(Jobs.block.call(gate.getLocalPort()));
                List<CompletableFuture<Integer>> tasks = new ArrayList<>();
                for (int i = 0; i < TASKS; i++) {
                    tasks.add(pool.submit(Jobs.square.call(i)));
                }
                try (Socket started = gate.accept()) {
                    assertEquals(1, started.getInputStream().read());
                    for (int i = 0; i < TASKS; i += 3) {
                        tasks.get(i).cancel(true);
                    }
                    blocked.cancel(true);
                    started.getOutputStream().write(1);
                }
                settle(pool, tasks, "round " + round);
            }
        } finally {
            closeWithin(pool, 60);
        }
    }

    @Test
    void closingStreamsMidwayAndBeforeTheyStartSettlesThemAll() throws Exception {
        Pool pool = Isolated.workers(1, IsolatedOptions.defaults());
        try {
            for (int round = 0; round < 30; round++) {
                List<LiveStream<Integer>> streams = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    streams.add(pool.run(StreamJobs.range.call(0, 1_000_000)));
                }
                Iterator<Integer> first = streams.get(0).iterator();
                for (int i = 0; i < round * 10; i++) {
                    assertEquals(i, first.next());
                }
                for (int i = streams.size() - 1; i >= 0; i--) {
                    streams.get(i).close(); // the queued ones first, then the running one
                }
                CompletableFuture<Integer> after = pool.submit(Jobs.square.call(round));
                settle(pool, List.of(after), "round " + round);
            }
        } finally {
            closeWithin(pool, 60);
        }
    }

    @Test
    void closingThePoolRightAfterCancellingSettlesEveryTaskAndReturns() throws Exception {
        for (int round = 0; round < 10; round++) {
            Pool pool = Isolated.workers(1, IsolatedOptions.defaults());
            List<CompletableFuture<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(pool.submit(Jobs.square.call(i)));
            }
            for (int i = TASKS - 1; i >= 0; i -= 2) {
                tasks.get(i).cancel(true);
            }
            closeWithin(pool, 60);
            for (int i = 0; i < TASKS; i++) {
                assertTrue(tasks.get(i).isDone(), "round " + round + ": task " + i + " is settled once close() has returned");
            }
        }
    }

    @Test
    void terminatingThePoolRightAfterCancellingSettlesEveryTask() throws Exception {
        for (int round = 0; round < 10; round++) {
            Pool pool = Isolated.workers(1, IsolatedOptions.defaults());
            List<CompletableFuture<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(pool.submit(Jobs.square.call(i)));
            }
            for (int i = 0; i < TASKS; i += 2) {
                tasks.get(i).cancel(true);
            }
            CompletableFuture.runAsync(pool::terminate).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < TASKS; i++) { // terminate() does not wait: each settles soon after
                try {
                    tasks.get(i).get(30, TimeUnit.SECONDS);
                } catch (CancellationException | ExecutionException settled) {
                    assertTrue(tasks.get(i).isDone(), "round " + round + ": task " + i);
                } catch (TimeoutException stuck) {
                    fail("round " + round + ": task " + i + " not settled within 30 s of terminate()");
                }
            }
        }
    }

    /** Each task settles (its value, or its cancellation), and then every worker's active count returns to 0. */
    private static void settle(Pool pool, List<CompletableFuture<Integer>> tasks, String where) throws Exception {
        for (int i = 0; i < tasks.size(); i++) {
            CompletableFuture<Integer> task = tasks.get(i);
            try {
                int value = task.get(30, TimeUnit.SECONDS);
                assertTrue(value >= 0, where + ": task " + i);
            } catch (CancellationException cancelled) {
                assertTrue(task.isCancelled(), where + ": task " + i);
            } catch (ExecutionException failed) {
                fail(where + ": task " + i + " failed", failed.getCause());
            } catch (TimeoutException stuck) {
                fail(where + ": task " + i + " not settled within 30 s; active counts " + activeCounts(pool));
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (WorkerHandle worker : pool.workers()) {
            while (worker.activeCount() != 0) {
                assertTrue(System.nanoTime() < deadline, where + ": active counts stuck at " + activeCounts(pool));
                Thread.onSpinWait();
            }
        }
        assertEquals(49, pool.run(Jobs.square.call(7)), where + ": the pool goes on");
    }

    private static List<Integer> activeCounts(Pool pool) {
        return pool.workers().stream().map(WorkerHandle::activeCount).toList();
    }

    private static void closeWithin(Pool pool, int seconds) throws Exception {
        try {
            CompletableFuture.runAsync(pool::close).get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException hung) {
            fail("close() did not return within " + seconds + " s; active counts " + activeCounts(pool));
        }
    }
}
