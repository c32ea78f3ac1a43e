package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.WorkerDiedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tasks that their dispatching threads write into the request ring themselves (value tasks with no
 * timeout, signal or stream), from several threads at once, mixed with tasks the pump sends (those
 * with a timeout): each thread's tasks run in its order, each once; a JVM killed, a task limit
 * reached, or the pool stopped while they write settles each task once.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DirectSendTest {

    private static final int THREADS = 3;
    private static final int ROUNDS = 5;

    /** The threads' tasks: thread t submits numbers t * per .. t * per + per - 1, every fifth with a timeout (sent by the pump). */
    private static List<List<CompletableFuture<String>>> submitFromThreads(Pool pool, int per) throws Exception {
        CountDownLatch go = new CountDownLatch(1); // all at once
        List<CompletableFuture<List<CompletableFuture<String>>>> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int first = t * per;
            threads.add(CompletableFuture.supplyAsync(() -> {
                List<CompletableFuture<String>> futures = new ArrayList<>();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (int i = first; i < first + per; i++) {
                    Task<String> task = DirectJobs.ticket.call(i);
                    try {
                        futures.add(pool.submit(i % 5 == 0 ? task.withTimeout(Duration.ofMinutes(5)) : task));
                    } catch (RejectedExecutionException stopped) {
                        futures.add(CompletableFuture.failedFuture(stopped));
                    }
                }
                return futures;
            }, runnable -> Thread.ofPlatform().start(runnable)));
        }
        go.countDown();
        List<List<CompletableFuture<String>>> all = new ArrayList<>();
        for (CompletableFuture<List<CompletableFuture<String>>> thread : threads) {
            all.add(thread.get(120, TimeUnit.SECONDS));
        }
        return all;
    }

    /** The threads of {@link #submitFromThreads} started; returns once the worker has tasks in flight, or they are done. */
    private static CompletableFuture<List<List<CompletableFuture<String>>>> writing(Pool pool, int per) {
        CompletableFuture<List<List<CompletableFuture<String>>>> submitting = CompletableFuture.supplyAsync(() -> {
            try {
                return submitFromThreads(pool, per);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        awaitActive(pool, submitting);
        return submitting;
    }

    private static void awaitActive(Pool pool, CompletableFuture<?> submitting) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (pool.workers().get(0).activeCount() < 20 && !submitting.isDone()) {
            assertTrue(System.nanoTime() < deadline, "no task in flight within 60 s");
            Thread.onSpinWait();
        }
    }

    /** {pid, ticket, number} of an answer. */
    private static long[] parse(String answer) {
        String[] parts = answer.split(":");
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])};
    }

    @Test
    void eachThreadsTasksRunOnceInItsOrder() throws Exception {
        int per = 3_000;
        try (Pool pool = Isolated.workers(1)) {
            for (int round = 0; round < ROUNDS; round++) {
                List<List<CompletableFuture<String>>> all = submitFromThreads(pool, per);
                Set<Long> tickets = new HashSet<>();
                for (int t = 0; t < THREADS; t++) {
                    long last = -1;
                    for (int i = 0; i < per; i++) {
                        long[] answer = parse(all.get(t).get(i).get(60, TimeUnit.SECONDS));
                        assertEquals(t * per + i, answer[2], "thread " + t + ", task " + i);
                        assertTrue(answer[1] > last, "thread " + t + "'s task " + i + " ran after its task before");
                        last = answer[1];
                        assertTrue(tickets.add(answer[1]), "ticket " + answer[1] + " given once");
                    }
                }
                assertEquals(0, pool.workers().get(0).activeCount());
            }
        }
    }

    @Test
    void aJvmKilledWhileThreadsWriteSettlesEachTaskOnce() throws Exception {
        int per = 400;
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)))) {
            for (int round = 0; round < ROUNDS; round++) {
                long pid = pool.run(Jobs.pid.call());
                // The threads are writing: kill the JVM under them.
                CompletableFuture<List<List<CompletableFuture<String>>>> submitting = writing(pool, per);
                ProcessHandle.of(pid).orElseThrow().destroyForcibly();
                List<List<CompletableFuture<String>>> all = submitting.get(120, TimeUnit.SECONDS);
                int died = 0;
                Map<Long, Set<Long>> ticketsPerJvm = new HashMap<>();
                for (int t = 0; t < THREADS; t++) {
                    long lastPid = -1;
                    long lastTicket = -1;
                    Set<Long> left = new HashSet<>();
                    for (int i = 0; i < per; i++) {
                        try {
                            long[] answer = parse(all.get(t).get(i).get(60, TimeUnit.SECONDS));
                            assertEquals(t * per + i, answer[2]);
                            // Retried tasks run on the new JVM, after those that ran on the old one, in order.
                            assertTrue(answer[0] != lastPid || answer[1] > lastTicket, "thread " + t + ", task " + i + " in order");
                            if (answer[0] != lastPid) {
                                assertTrue(left.add(lastPid), "thread " + t + ", task " + i + " ran on a JVM it had left");
                            }
                            lastPid = answer[0];
                            lastTicket = answer[1];
                            assertTrue(ticketsPerJvm.computeIfAbsent(answer[0], jvm -> new HashSet<>()).add(answer[1]),
                                    "each run answered once");
                        } catch (ExecutionException failed) {
                            assertInstanceOf(WorkerDiedException.class, failed.getCause(), "thread " + t + ", task " + i);
                            died++;
                        }
                    }
                }
                assertTrue(died <= 1, "only the task that ran when the JVM died fails: " + died);
                assertEquals(0, pool.workers().get(0).activeCount());
            }
        }
    }

    @Test
    void aTaskLimitHoldsWhileThreadsWrite() throws Exception {
        int limit = 200;
        int per = 500;
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withMaxTasksPerJvm(limit))) {
            List<List<CompletableFuture<String>>> all = submitFromThreads(pool, per);
            Map<Long, Integer> perJvm = new HashMap<>();
            for (List<CompletableFuture<String>> futures : all) {
                for (CompletableFuture<String> future : futures) {
                    perJvm.merge(parse(future.get(60, TimeUnit.SECONDS))[0], 1, Integer::sum);
                }
            }
            assertEquals(THREADS * per, perJvm.values().stream().mapToInt(Integer::intValue).sum());
            for (int count : perJvm.values()) {
                assertTrue(count <= limit, "no JVM runs more tasks than its limit: " + perJvm);
            }
            assertTrue(perJvm.size() >= THREADS * per / limit, "retired at the limit: " + perJvm);
        }
    }

    @Test
    void closingWhileThreadsWriteRunsEveryAcceptedTask() throws Exception {
        int per = 1_000;
        for (int round = 0; round < ROUNDS; round++) {
            Pool pool = Isolated.workers(1);
            pool.run(Jobs.pid.call());
            CompletableFuture<List<List<CompletableFuture<String>>>> submitting = writing(pool, per);
            pool.close();
            for (List<CompletableFuture<String>> futures : submitting.get(120, TimeUnit.SECONDS)) {
                for (CompletableFuture<String> future : futures) {
                    try {
                        parse(future.get(60, TimeUnit.SECONDS));
                    } catch (ExecutionException refused) {
                        assertInstanceOf(RejectedExecutionException.class, refused.getCause(), "an accepted task runs");
                    }
                }
            }
            assertEquals(0, pool.workers().get(0).activeCount());
        }
    }

    @Test
    void terminatingWhileThreadsWriteSettlesEveryTask() throws Exception {
        int per = 1_000;
        for (int round = 0; round < ROUNDS; round++) {
            Pool pool = Isolated.workers(1);
            pool.run(Jobs.pid.call());
            CompletableFuture<List<List<CompletableFuture<String>>>> submitting = writing(pool, per);
            pool.terminate();
            for (List<CompletableFuture<String>> futures : submitting.get(120, TimeUnit.SECONDS)) {
                for (CompletableFuture<String> future : futures) {
                    try {
                        future.get(60, TimeUnit.SECONDS);
                    } catch (CancellationException cancelled) {
                        // not run, or stopped: the pool was terminated
                    } catch (ExecutionException refused) {
                        assertInstanceOf(RejectedExecutionException.class, refused.getCause());
                    }
                }
            }
            assertEquals(0, pool.workers().get(0).activeCount());
        }
    }
}
