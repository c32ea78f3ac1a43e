package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded rounds of streams and value tasks on one worker JVM, which dies in each round: killed by a
 * task of the round (the tasks before it answered or their run ended; those after it never
 * started), or by SIGKILL at a random moment (when the caller has read a random number of a
 * random stream's items). Every task settles exactly once; a task that succeeded ran once, one
 * that failed ran at most once; a stream's items come in order, whole or a prefix; a death fails
 * at most one task "while running"; the task that killed its JVM ran once; the tasks after it run
 * on the new JVM.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class RunEndedDeathStressTest {

    private static final int ROUNDS = 20 * Integer.getInteger("moroutine.stress.scale", 1);
    private static final long SEED = Long.getLong("moroutine.stress.seed", 20_261_201L);
    private static final IsolatedOptions OPTIONS = IsolatedOptions.defaults().withCrashLimit(100_000, Duration.ofSeconds(1));

    private enum Kind { STREAM, VALUE, KILLER }

    /** One task of a round: what it is, the file its runs are recorded in, and its outcome. */
    private record Task(Kind kind, Path runs, int size, CompletableFuture<Object> outcome, List<Integer> items) {}

    @Test
    void everyTaskSettlesOnceAndRunsAtMostOnceWhenItsJvmDiesAtRandomMoments(@TempDir Path dir) throws Exception {
        Random random = new Random(SEED);
        ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();
        try (Pool pool = Isolated.workers(1, OPTIONS)) {
            for (int round = 0; round < ROUNDS; round++) {
                String where = "seed " + SEED + ", round " + round;
                boolean sigkill = random.nextBoolean();
                long pid = pid(pool); // also: the last round's death has been seen, so this round's tasks go to a live JVM
                int n = 2 + random.nextInt(6);
                int killerAt = sigkill ? -1 : random.nextInt(n);
                int triggerStream = random.nextInt(n);
                List<Task> tasks = new ArrayList<>();
                boolean armed = false;
                for (int i = 0; i < n; i++) {
                    Path runs = dir.resolve("r" + round + "-" + i);
                    if (i == killerAt) {
                        tasks.add(new Task(Kind.KILLER, runs, 0,
                                pool.submit(OrderJobs.recordThenHalt.call(runs.toString())).thenApply(v -> v), null));
                    } else if (random.nextBoolean()) {
                        int size = random.nextInt(3) == 0 ? 5_000 + random.nextInt(20_000) : random.nextInt(50);
                        LiveStream<Integer> stream = pool.run(OrderJobs.recordThenCount.call(runs.toString(), size));
                        List<Integer> items = Collections.synchronizedList(new ArrayList<>());
                        boolean trigger = sigkill && !armed && i >= triggerStream;
                        armed |= trigger;
                        int killAfter = trigger ? random.nextInt(size + 1) : -1;
                        CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
                            boolean killed = false;
                            try {
                                for (Integer item : stream) {
                                    if (!killed && items.size() == killAfter) {
                                        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                                        killed = true;
                                    }
                                    items.add(item);
                                }
                                if (!killed && killAfter >= 0) {
                                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                                }
                                return items.size();
                            } catch (TaskFailedException failed) {
                                if (!killed && killAfter >= 0) {
                                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                                }
                                throw failed;
                            }
                        }, readers);
                        tasks.add(new Task(Kind.STREAM, runs, size, outcome, items));
                    } else {
                        int value = i;
                        tasks.add(new Task(Kind.VALUE, runs, value,
                                pool.submit(Jobs.record.call(runs.toString(), value)).thenApply(v -> v), null));
                    }
                }
                if (sigkill && !armed) { // no stream from the chosen position on: a death all the same, at once
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
                List<String> whileRunning = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    Task task = tasks.get(i);
                    String what = where + ", task " + i + " " + task.kind + (sigkill ? " (SIGKILL)" : " (killer at " + killerAt + ")");
                    Throwable failure = null;
                    Object value = null;
                    try {
                        value = task.outcome.get(120, TimeUnit.SECONDS);
                    } catch (TimeoutException hung) {
                        fail(what + ": not settled within 120 s; active counts "
                                + pool.workers().stream().map(WorkerHandle::activeCount).toList());
                    } catch (ExecutionException failed) {
                        failure = failed.getCause() instanceof TaskFailedException tf ? tf.getCause() : failed.getCause();
                        if (failure instanceof java.util.concurrent.CompletionException ce && ce.getCause() != null) {
                            failure = ce.getCause();
                        }
                        if (failure instanceof TaskFailedException tf && tf.getCause() != null) {
                            failure = tf.getCause();
                        }
                    }
                    int ran = Files.exists(task.runs) ? Files.readAllLines(task.runs).size() : 0;
                    if (failure == null) {
                        assertEquals(1, ran, what + ": it succeeded, so it ran once");
                        if (task.kind == Kind.STREAM) {
                            assertEquals(task.size, value, what + ": every item");
                        } else {
                            assertEquals(task.size, value, what);
                        }
                    } else {
                        WorkerDiedException died = assertInstanceOf(WorkerDiedException.class, failure, what + ": " + failure);
                        assertTrue(ran <= 1, what + ": it failed and ran " + ran + " times; " + died.getMessage());
                        if (died.getMessage().contains(" while running ")) {
                            whileRunning.add("task " + i + ": " + died.getMessage());
                        }
                    }
                    if (task.kind == Kind.STREAM) {
                        List<Integer> items = List.copyOf(task.items);
                        for (int k = 0; k < items.size(); k++) {
                            assertEquals(k, items.get(k), what + ": items in order, none lost or repeated");
                        }
                    }
                    if (task.kind == Kind.KILLER) {
                        assertEquals(1, ran, what + ": the task that killed its JVM ran once");
                        assertTrue(failure != null && failure.getMessage().contains(" while running ")
                                && failure.getMessage().contains("OrderJobs#recordThenHalt"), what + ": " + failure);
                    }
                    if (!sigkill && i > killerAt) {
                        assertEquals(null, failure, what + ": it never started on the JVM that died, so it runs on the new one");
                    }
                    if (!sigkill && i < killerAt && task.kind == Kind.VALUE) {
                        assertEquals(null, failure, what + ": it answered before the killer started");
                    }
                }
                assertTrue(whileRunning.size() <= 1, where + (sigkill ? " (SIGKILL)" : " (killer at " + killerAt + ")") + ", kinds "
                        + tasks.stream().map(Task::kind).toList() + ": tasks failed \"while running\" by one death: " + whileRunning);
                assertEquals(List.of(0), pool.workers().stream().map(WorkerHandle::activeCount).toList(), where + ": active");
            }
        } finally {
            readers.shutdownNow();
        }
    }

    /** The worker JVM's pid: asked again if the JVM the last round killed after its tasks had not yet been replaced. */
    private static long pid(Pool pool) {
        for (;;) {
            try {
                return pool.run(Jobs.pid.call());
            } catch (TaskFailedException stillDying) {
                if (!(stillDying.getCause() instanceof WorkerDiedException)) {
                    throw stillDying;
                } // the last round's SIGKILL after its last item: the task goes to the new JVM now
            }
        }
    }
}
