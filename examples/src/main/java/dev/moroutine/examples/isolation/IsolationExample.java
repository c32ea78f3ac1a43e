package dev.moroutine.examples.isolation;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.shared.Shared.int32Atomic;
import static dev.moroutine.shared.Shared.shared;

import dev.moroutine.Pool;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.isolated.Isolated;
import dev.moroutine.shared.Int32Atomic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Worker JVMs contain what threads cannot: a task that halts its JVM fails alone, and the pool
 * replaces the JVM and goes on; a runaway task that ignores interrupts is stopped by its timeout
 * (its JVM is killed and replaced). Shared memory still crosses: two worker processes add to the
 * same {@code int32Atomic}, allocated here while the pool is open, and the total is exact; the
 * parent waits for them on a second atomic that they wake across the process boundary.
 */
public final class IsolationExample {

    private static final int EACH = 50_000;

    private IsolationExample() {}

    /** What a task failed with (its cause, not the wrapper), or null if it did not fail. */
    private static Throwable failureOf(CompletableFuture<?> task) throws InterruptedException {
        try {
            task.get();
            return null;
        } catch (ExecutionException failed) {
            return failed.getCause();
        }
    }

    /**
     * Crashes a worker, stops a runaway, and counts across two processes.
     *
     * @param args ignored
     * @throws InterruptedException if interrupted while waiting for the workers
     */
    public static void main(String[] args) throws InterruptedException {
        try (Pool pool = Isolated.workers(2)) {
            WorkerHandle first = pool.workers().get(0);

            // 1. A task that halts its JVM fails alone; the worker gets a new JVM.
            Throwable halted = failureOf(pool.submit(assign(first, Risky.halt.call(3))));
            String died = String.valueOf(halted.getMessage());
            boolean haltContained = halted instanceof WorkerDiedException && died.contains("exit status 3")
                    && died.contains("about to halt with status 3");
            int afterHalt = pool.run(assign(first, Risky.square.call(12)));
            String firstLine = died.lines().findFirst().orElse("").replace(" Its last output:", "");
            System.out.println("halt:    the task failed with \"" + firstLine + "\"");
            System.out.println("         the same worker then computed 12² = " + afterHalt);

            // 2. A runaway task is stopped by its timeout, counted from its start.
            long start = System.nanoTime();
            boolean timedOut = failureOf(pool.submit(Risky.runaway.call().withTimeout(Duration.ofMillis(500))))
                    instanceof TimeoutException;
            long stoppedAfter = (System.nanoTime() - start) / 1_000_000;
            int afterRunaway = pool.run(Risky.square.call(9));
            System.out.println("runaway: stopped by its 500 ms timeout (" + (stoppedAfter >= 500 ? "after ≥ 500 ms" : "too early")
                    + "); then 9² = " + afterRunaway);

            // 3. Two worker processes count into the same shared memory.
            Int32Atomic counter = shared(int32Atomic);
            Int32Atomic finished = shared(int32Atomic);
            List<CompletableFuture<Long>> tasks = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {
                tasks.add(pool.submit(assign(worker, Risky.count.call(counter, EACH, finished))));
            }
            for (int seen; (seen = finished.load()) < 2; ) {
                finished.await(seen); // woken by the worker processes
            }
            long pids = tasks.stream().map(CompletableFuture::join).distinct()
                    .filter(pid -> pid != ProcessHandle.current().pid()).count();
            System.out.printf("shared:  %d worker processes added %,d each to one int32Atomic: %,d%n", pids, EACH, counter.load());

            check(haltContained && afterHalt == 144 && timedOut && stoppedAfter >= 500 && afterRunaway == 81 && pids == 2
                    && counter.load() == 2 * EACH, "halt contained with exit status 3, then 12² = 144; runaway timed out,"
                    + " then 9² = 81; 2 processes × " + EACH + " = " + 2 * EACH);
        }
    }
}
