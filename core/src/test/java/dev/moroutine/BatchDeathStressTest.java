package dev.moroutine;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Two batches at once on 3 or 4 workers, each with a task that kills its thread: every other task runs exactly once. */
@Timeout(300)
class BatchDeathStressTest {

    static final Mo2<AtomicIntegerArray, Integer, Integer> mark = mo((runs, i) -> {
        long end = System.nanoTime() + (i % 5 == 0 ? 30 : i % 3) * 1_000L;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        runs.incrementAndGet(i);
        return i;
    });
    static final Mo1<Integer, Integer> recurse = mo(BatchDeathStressTest::depth);

    private static int depth(int n) {
        return depth(n + 1) + 1;
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3, 4})
    void everyOtherTaskRunsOnce(int size) throws Exception {
        try (Pool pool = workers(size)) {
            for (int round = 0; round < 60; round++) {
                int n = 50;
                AtomicIntegerArray[] runs = {new AtomicIntegerArray(n), new AtomicIntegerArray(n)};
                int[] dies = {3 + round % 40, 7 + round % 37};
                List<CompletableFuture<List<Integer>>> callers = new ArrayList<>();
                for (int c = 0; c < 2; c++) {
                    List<Task<Integer>> batch = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        batch.add(i == dies[c] ? recurse.call(0) : mark.call(runs[c], i));
                    }
                    callers.add(CompletableFuture.supplyAsync(() -> pool.runAll(batch), Thread::startVirtualThread));
                }
                for (int c = 0; c < 2; c++) {
                    try {
                        callers.get(c).get(60, TimeUnit.SECONDS);
                        fail("round " + round + ": batch " + c + " should fail");
                    } catch (ExecutionException e) {
                        assertInstanceOf(TaskFailedException.class, e.getCause());
                    }
                    for (int i = 0; i < n; i++) {
                        assertEquals(i == dies[c] ? 0 : 1, runs[c].get(i), "round " + round + ", batch " + c + ", task " + i);
                    }
                }
                for (WorkerHandle worker : pool.workers()) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (worker.activeCount() != 0) {
                        if (System.nanoTime() > deadline) {
                            fail("round " + round + ": " + worker + " activeCount " + worker.activeCount());
                        }
                        Thread.onSpinWait();
                    }
                }
            }
        }
    }
}
