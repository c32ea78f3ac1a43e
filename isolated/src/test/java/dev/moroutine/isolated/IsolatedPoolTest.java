package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.leastBusy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Value moroutines on worker JVMs: the same calls as on threads, with the same results. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IsolatedPoolTest {

    /** Shared by the tests that do not stop or kill workers: each pool costs two JVM starts. */
    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(2, IsolatedOptions.defaults().register(Jobs.Point.class));
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void runsEachTaskInAWorkerJvm() {
        assertEquals(49, pool.run(Jobs.square.call(7)));
        Set<Long> pids = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            pids.add(pool.run(Jobs.pid.call())); // round robin: both workers
        }
        assertEquals(2, pids.size(), "two worker JVMs: " + pids);
        assertTrue(!pids.contains(ProcessHandle.current().pid()));
    }

    @Test
    void submitAndRunAllGiveTheResultsInOrder() throws Exception {
        CompletableFuture<Integer> sum = pool.submit(Jobs.add.call(2, 3));
        List<Task<Integer>> tasks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            tasks.add(Jobs.square.call(i));
        }
        List<Integer> squares = pool.runAll(tasks);
        for (int i = 0; i < 100; i++) {
            assertEquals(i * i, squares.get(i));
        }
        assertEquals(5, sum.get(30, TimeUnit.SECONDS));
    }

    @Test
    void anAssignedTaskRunsOnItsWorker() {
        List<WorkerHandle> workers = pool.workers();
        long first = pool.run(assign(workers.get(0), Jobs.pid.call()));
        long second = pool.run(assign(workers.get(1), Jobs.pid.call()));
        assertNotEquals(first, second);
        for (int i = 0; i < 5; i++) {
            assertEquals(second, pool.run(assign(workers.get(1), Jobs.pid.call())));
        }
    }

    @Test
    void aRegisteredRecordCrossesBothWays() {
        assertEquals(new Jobs.Point(2, 1), pool.run(Jobs.mirror.call(new Jobs.Point(1, 2))));
    }

    @Test
    void theJdksOwnTypesCrossWithoutRegistering() {
        assertEquals("[1, two, 3.0]", pool.run(Jobs.describe.call(List.of(1, "two", 3.0))));
    }

    @Test
    void aFailureArrivesAsTheSameExceptionWithTheWorkersStack() {
        TaskFailedException failed = assertThrows(TaskFailedException.class, () -> pool.run(Jobs.fail.call("bad input")));
        IllegalArgumentException cause = assertInstanceOf(IllegalArgumentException.class, failed.getCause());
        assertEquals("bad input", cause.getMessage());
        assertTrue(List.of(cause.getStackTrace()).stream().anyMatch(frame -> frame.getClassName().startsWith(Jobs.class.getName())),
                "the worker's frames: " + List.of(cause.getStackTrace()));
    }

    @Test
    void aTaskArgIsResolvedOnceInItsWorkerAndClosedWhenItStops(@TempDir Path directory) throws Exception {
        Path marker = directory.resolve("closed");
        List<String> uses = new ArrayList<>();
        long worker;
        try (Pool single = Isolated.workers(1)) {
            Task<Jobs.Handle> handle = Jobs.open.call(marker.toString());
            for (int i = 0; i < 3; i++) {
                uses.add(single.run(Jobs.use.call(handle)));
            }
            worker = single.run(Jobs.pid.call());
        }
        assertEquals(List.of("1/1/" + worker, "1/2/" + worker, "1/3/" + worker), uses);
        assertEquals("closed 1 after 3 uses in " + worker, Files.readString(marker), "closed by close(), in the worker JVM");
        assertTrue(ProcessHandle.of(worker).map(ProcessHandle::isAlive).isEmpty(), "close() returns once the JVM has exited");
    }

    @Test
    void aWorkersOutputReachesThisJvmPrefixedWithItsName() throws Exception {
        WorkerHandle worker = pool.workers().get(0);
        String expected = "[" + worker.name() + "] hello from a worker JVM";
        CountDownLatch seen = new CountDownLatch(1);
        PrintStream original = System.out;
        System.setOut(new PrintStream(original, true) {
            @Override
            public void println(String line) {
                super.println(line);
                if (expected.equals(line)) {
                    seen.countDown();
                }
            }
        });
        try {
            pool.run(assign(worker, Jobs.print.call("hello from a worker JVM")));
            assertTrue(seen.await(30, TimeUnit.SECONDS), "forwarded: " + expected);
        } finally {
            System.setOut(original);
        }
    }

    @Test
    void cancellingATaskInterruptsItInItsJvmWhichGoesOn() throws Exception {
        WorkerHandle worker = pool.workers().get(1);
        long before = pool.run(assign(worker, Jobs.pid.call()));
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            CompletableFuture<String> waiting = pool.submit(assign(worker, Jobs.awaitInterrupt.call(gate.getLocalPort())));
            try (Socket started = gate.accept()) {
                assertEquals(1, started.getInputStream().read(), "the task has started");
            }
            assertTrue(waiting.cancel(true));
            // The worker is free again, in the same JVM: only an interrupted task lets this run.
            assertEquals(before, pool.submit(assign(worker, Jobs.pid.call())).get(60, TimeUnit.SECONDS));
            assertEquals(0, worker.activeCount());
        }
    }

    @Test
    void terminateCancelsTheRunningTaskAndStopsItsJvm() throws Exception {
        Pool doomed = Isolated.workers(1);
        long worker = doomed.run(Jobs.pid.call());
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            CompletableFuture<Integer> running = doomed.submit(Jobs.block.call(gate.getLocalPort()));
            CompletableFuture<Integer> queued = doomed.submit(Jobs.square.call(2));
            try (Socket started = gate.accept()) {
                assertEquals(1, started.getInputStream().read());
                doomed.terminate();
                CancellationException cancelled = assertThrows(CancellationException.class, () -> running.get(30, TimeUnit.SECONDS));
                assertTrue(cancelled.getCause().getMessage().endsWith(" was terminated while this task was running in the"
                        + " worker's JVM (task dev.moroutine.isolated.Jobs#block)"), cancelled.getCause().getMessage());
                // The worker's pump cancels them, in order, as soon as it sees the stop: wait for the second too.
                assertThrows(CancellationException.class, () -> queued.get(30, TimeUnit.SECONDS));
                ProcessHandle.of(worker).ifPresent(process -> process.onExit().orTimeout(30, TimeUnit.SECONDS).join());
            }
        }
    }

    @Test
    void fourWorkersRunManyTasksFromManyThreadsExactly() throws Exception {
        int tasks = 4_000;
        try (Pool four = Isolated.workers(4, IsolatedOptions.defaults().withPoolOptions(PoolOptions.defaults().withBalancer(leastBusy())))) {
            List<CompletableFuture<List<Integer>>> callers = new ArrayList<>();
            for (int caller = 0; caller < 4; caller++) {
                int offset = caller * tasks;
                callers.add(CompletableFuture.supplyAsync(() -> {
                    List<CompletableFuture<Integer>> sums = new ArrayList<>();
                    for (int i = 0; i < tasks; i++) {
                        sums.add(four.submit(Jobs.add.call(offset + i, 1)));
                    }
                    return sums.stream().map(CompletableFuture::join).toList();
                }));
            }
            for (int caller = 0; caller < 4; caller++) {
                List<Integer> sums = callers.get(caller).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < tasks; i++) {
                    assertEquals(caller * tasks + i + 1, sums.get(i));
                }
            }
            for (WorkerHandle worker : four.workers()) {
                assertEquals(0, worker.activeCount(), worker.name());
            }
        }
    }
}
