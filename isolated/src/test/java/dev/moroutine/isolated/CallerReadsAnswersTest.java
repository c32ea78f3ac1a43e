package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A caller waiting for an isolated worker's answer reads the reply ring itself while the pump
 * sleeps: whoever holds the pump's lock is the pump. These tests run many callers at once on one
 * worker JVM, beside a stream and the pump's own work, and close or kill the worker under them.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CallerReadsAnswersTest {

    private static final int CALLERS = 4;
    private static final int TASKS = 3_000;

    @Test
    void manyCallersAndAStreamGetExactlyTheirOwnAnswers() throws Exception {
        try (Pool pool = Isolated.workers(1); ExecutorService callers = Executors.newFixedThreadPool(CALLERS + 1)) {
            WorkerHandle worker = pool.workers().getFirst();
            List<Future<?>> runs = new ArrayList<>();
            AtomicLong chained = new AtomicLong();
            for (int c = 0; c < CALLERS; c++) {
                int caller = c;
                runs.add(callers.submit(() -> {
                    for (int i = 0; i < TASKS; i++) {
                        assertEquals(i + caller, pool.run(Jobs.add.call(i, caller)), "caller " + caller + ", task " + i);
                        if (i % 100 == 0) { // a dependent stage, completed by whoever reads its answer
                            pool.submit(Jobs.square.call(i)).thenAccept(chained::addAndGet);
                        }
                    }
                    return null;
                }));
            }
            // A stream at the same time: its items and credit go through the pump while callers read answers.
            runs.add(callers.submit(() -> {
                long sum = 0;
                int n = 100_000;
                try (LiveStream<Integer> items = pool.run(Jobs.countUp.call(n))) {
                    for (Integer item : (Iterable<Integer>) items::iterator) {
                        sum += item;
                    }
                }
                assertEquals((long) n * (n - 1) / 2, sum);
                return null;
            }));
            for (Future<?> run : runs) {
                run.get(180, TimeUnit.SECONDS);
            }
            long expected = 0;
            for (int i = 0; i < TASKS; i += 100) {
                expected += (long) CALLERS * i * i;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (chained.get() != expected && System.nanoTime() < deadline) {
                assertEquals(49, pool.run(Jobs.square.call(7))); // the last stages run as their answers are read
            }
            assertEquals(expected, chained.get(), "every dependent stage ran once");
            assertEquals(0, worker.activeCount());
        }
    }

    @Test
    void answersThatComeAfterPipeliningCallersLeftAreStillRead() throws Exception {
        int inFlight = 64;
        try (Pool pool = Isolated.workers(1); ExecutorService callers = Executors.newFixedThreadPool(2)) {
            for (int round = 0; round < 200; round++) {
                // Nobody waits for the last answers: the pump, waiting beside the callers as they left, or woken by the child, reads them.
                CountDownLatch answered = new CountDownLatch(2 * inFlight);
                AtomicLong sum = new AtomicLong();
                List<Future<?>> runs = new ArrayList<>();
                for (int c = 0; c < 2; c++) {
                    int caller = c;
                    runs.add(callers.submit(() -> {
                        for (int i = 0; i < inFlight; i++) {
                            Task<Integer> task = Jobs.add.call(i, caller);
                            // Every 7th goes through the pump (a timeout needs it), whose wake-up the waiting pump must not miss.
                            CompletableFuture<Integer> answer = pool.submit(i % 7 == 0 ? task.withTimeout(Duration.ofMinutes(5)) : task);
                            answer.thenAccept(value -> {
                                sum.addAndGet(value);
                                answered.countDown();
                            });
                            if (i % 8 == 7) {
                                assertEquals(i + caller, answer.get(60, TimeUnit.SECONDS)); // watches a while, then leaves
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> run : runs) {
                    run.get(60, TimeUnit.SECONDS);
                }
                assertTrue(answered.await(60, TimeUnit.SECONDS), "round " + round + ": " + answered.getCount() + " answers unread");
                // 0 + 1 + … + 63 from each caller, and caller 1 adds 1 to each of its tasks.
                assertEquals(2L * (inFlight * (inFlight - 1) / 2) + inFlight, sum.get(), "round " + round);
            }
            assertEquals(0, pool.workers().getFirst().activeCount());
        }
    }

    @Test
    void aStageThatWaitsForItsOwnWorkerFailsWhereverItRuns() throws Exception {
        try (Pool pool = Isolated.workers(1); ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ExecutorService callers = Executors.newFixedThreadPool(2)) {
            gate.setSoTimeout(60_000);
            for (int round = 0; round < 20; round++) {
                CompletableFuture<Integer> blocked = pool.submit(Jobs.block.call(gate.getLocalPort()));
                // Run by the thread that reads the answer: the pump, or a caller waiting for the task behind.
                CompletableFuture<String> stage = blocked.thenApply(port -> {
                    try {
                        return "ran " + pool.run(Jobs.square.call(3));
                    } catch (IllegalStateException refused) {
                        return refused.getMessage();
                    }
                });
                int r = round;
                try (Socket started = gate.accept(); OutputStream release = started.getOutputStream()) {
                    assertEquals(1, started.getInputStream().read());
                    CountDownLatch waiting = new CountDownLatch(2);
                    List<Future<Integer>> behind = new ArrayList<>();
                    for (int c = 0; c < 2; c++) {
                        int caller = c;
                        behind.add(callers.submit(() -> {
                            waiting.countDown();
                            return pool.run(Jobs.add.call(r, caller));
                        }));
                    }
                    assertTrue(waiting.await(60, TimeUnit.SECONDS));
                    release.write(1);
                    for (int c = 0; c < 2; c++) {
                        assertEquals(r + c, behind.get(c).get(60, TimeUnit.SECONDS), "round " + r + ", caller " + c);
                    }
                }
                String outcome = stage.get(60, TimeUnit.SECONDS);
                assertTrue(outcome.contains("it would wait for itself"), "round " + r + ": " + outcome);
            }
            assertEquals(49, pool.run(Jobs.square.call(7)));
        }
    }

    @Test
    void aPoolClosedWhileCallersReadStopsWithEveryAdmittedTaskAnswered() throws Exception {
        for (int round = 0; round < 10; round++) {
            Pool pool = Isolated.workers(1);
            AtomicInteger answered = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            CountDownLatch running = new CountDownLatch(CALLERS);
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++) {
                int caller = c;
                threads.add(Thread.ofPlatform().start(() -> {
                    running.countDown();
                    for (int i = 0; ; i++) {
                        try {
                            assertEquals(i * caller, pool.run(Jobs.add.call(i * caller, 0)));
                            answered.incrementAndGet();
                        } catch (RejectedExecutionException closed) {
                            refused.incrementAndGet();
                            return;
                        }
                    }
                }));
            }
            assertTrue(running.await(60, TimeUnit.SECONDS));
            assertEquals(49, pool.run(Jobs.square.call(7))); // the callers are under way
            // The last answers are read by callers: the pump must still learn that it may send the stop.
            CompletableFuture.runAsync(pool::close).get(60, TimeUnit.SECONDS);
            for (Thread thread : threads) {
                assertTrue(thread.join(Duration.ofSeconds(60)), "a caller returned");
            }
            assertEquals(CALLERS, refused.get(), "round " + round + ": each caller was refused once, after the close");
            assertTrue(answered.get() > 0);
        }
    }

    @Test
    void aJvmKilledUnderWaitingCallersFailsOnlyTheTaskItRan() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)));
                ExecutorService callers = Executors.newFixedThreadPool(CALLERS)) {
            for (int round = 0; round < 5; round++) {
                long pid = pool.run(Jobs.pid.call());
                AtomicInteger died = new AtomicInteger();
                CountDownLatch running = new CountDownLatch(CALLERS);
                List<Future<Integer>> runs = new ArrayList<>();
                for (int c = 0; c < CALLERS; c++) {
                    int caller = c;
                    runs.add(callers.submit(() -> {
                        running.countDown();
                        int ran = 0;
                        for (int i = 0; i < 2_000; i++) {
                            try {
                                assertEquals(i + caller, pool.run(Jobs.add.call(i, caller)));
                                ran++;
                            } catch (TaskFailedException failed) {
                                assertInstanceOf(WorkerDiedException.class, failed.getCause(), failed.toString());
                                died.incrementAndGet();
                            }
                        }
                        return ran;
                    }));
                }
                assertTrue(running.await(60, TimeUnit.SECONDS));
                ProcessHandle.of(pid).orElseThrow().destroyForcibly();
                int ran = 0;
                for (Future<Integer> run : runs) {
                    ran += run.get(180, TimeUnit.SECONDS);
                }
                // One task ran in the JVM when it died (none if it died between tasks); the others went to the next JVM.
                assertTrue(died.get() <= 1, "round " + round + ": " + died.get() + " tasks failed");
                assertEquals(CALLERS * 2_000, ran + died.get(), "round " + round);
                assertEquals(0, pool.workers().getFirst().activeCount());
            }
        }
    }
}
