package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker JVM killed while its tasks are being cancelled, its stream closed, or its pool closed:
 * every task settles once (a value, its cancellation, or the death for the one that ran), the
 * worker's active count returns to 0 and close() returns.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DeathRaceTest {

    private static final int ROUNDS = 5;
    private static final int QUEUED = 200;

    @Test
    void cancelsRacingAKillSettleEveryTaskOnce() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)));
                ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            WorkerHandle worker = pool.workers().get(0);
            for (int round = 0; round < ROUNDS; round++) {
                long pid = pool.run(Jobs.pid.call());
                CompletableFuture<Integer> blocked = pool.submit(Jobs.block.call(gate.getLocalPort()));
                List<CompletableFuture<Integer>> queued = new ArrayList<>();
                for (int i = 0; i < QUEUED; i++) {
                    queued.add(pool.submit(Jobs.square.call(i)));
                }
                try (Socket started = gate.accept()) {
                    assertEquals(1, started.getInputStream().read());
                    CompletableFuture<boolean[]> cancelling = CompletableFuture.supplyAsync(() -> {
                        boolean[] cancelled = new boolean[QUEUED];
                        for (int i = 0; i < QUEUED; i += 2) {
                            cancelled[i] = queued.get(i).cancel(true);
                        }
                        return cancelled;
                    });
                    ProcessHandle.of(pid).orElseThrow().destroyForcibly();
                    boolean[] cancelled = cancelling.get(60, TimeUnit.SECONDS);
                    ExecutionException died = assertThrows(ExecutionException.class, () -> blocked.get(60, TimeUnit.SECONDS));
                    assertInstanceOf(WorkerDiedException.class, died.getCause());
                    for (int i = 0; i < QUEUED; i++) {
                        CompletableFuture<Integer> task = queued.get(i);
                        if (cancelled[i]) {
                            assertThrows(CancellationException.class, () -> task.get(60, TimeUnit.SECONDS), "task " + i);
                        } else {
                            assertEquals(i * i, task.get(60, TimeUnit.SECONDS), "task " + i + " ran on the new JVM");
                        }
                    }
                }
                awaitIdle(worker);
            }
        }
    }

    @Test
    void aStreamClosedWhileItsJvmDiesSettlesOnceAndTheWorkerGoesOn() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)))) {
            WorkerHandle worker = pool.workers().get(0);
            for (int round = 0; round < ROUNDS; round++) {
                long pid = pool.run(Jobs.pid.call());
                LiveStream<Integer> items = pool.run(Jobs.countUp.call(Integer.MAX_VALUE));
                List<CompletableFuture<Integer>> queued = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    queued.add(pool.submit(Jobs.square.call(i)));
                }
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < 100; i++) {
                    assertEquals(i, it.next());
                }
                CompletableFuture<Void> closing = CompletableFuture.runAsync(items::close);
                ProcessHandle.of(pid).orElseThrow().destroyForcibly();
                closing.get(60, TimeUnit.SECONDS);
                // The first may have started once the child was asked to stop the stream: it may fail with the death.
                try {
                    assertEquals(0, queued.get(0).get(60, TimeUnit.SECONDS));
                } catch (ExecutionException died) {
                    assertInstanceOf(WorkerDiedException.class, died.getCause());
                }
                for (int i = 1; i < 20; i++) {
                    assertEquals(i * i, queued.get(i).get(60, TimeUnit.SECONDS), "task " + i);
                }
                awaitIdle(worker);
            }
            assertEquals(49, pool.run(assign(worker, Jobs.square.call(7))));
        }
    }

    @Test
    void closingThePoolWhileItsJvmIsKilledSettlesEveryTaskAndReturns() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)));
            long pid = pool.run(Jobs.pid.call());
            List<CompletableFuture<Integer>> queued = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                queued.add(pool.submit(Jobs.square.call(i % 100)));
            }
            CompletableFuture<Void> closing = CompletableFuture.runAsync(pool::close);
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            closing.get(60, TimeUnit.SECONDS);
            int ran = 0;
            for (int i = 0; i < queued.size(); i++) {
                CompletableFuture<Integer> task = queued.get(i);
                assertTrue(task.isDone(), "task " + i + " is settled once close() has returned");
                try {
                    assertEquals((i % 100) * (i % 100), task.get());
                    ran++;
                } catch (ExecutionException failed) {
                    assertInstanceOf(WorkerDiedException.class, failed.getCause(), "task " + i);
                }
            }
            assertTrue(ran >= queued.size() - 1, "only the task running when the JVM died fails: " + ran + " ran");
            assertEquals(0, pool.workers().get(0).activeCount());
        }
    }

    private static void awaitIdle(WorkerHandle worker) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (worker.activeCount() != 0) {
            assertTrue(System.nanoTime() < deadline, "active count stuck at " + worker.activeCount());
            Thread.onSpinWait();
        }
    }
}
