package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.shared.Shared.shared;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.isolated.Jobs.Point;
import dev.moroutine.isolated.SharedJobs.Tally;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.Shared;
import dev.moroutine.shared.Struct;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's "Isolated workers" examples, compiled and run (examples' ReadmeTest finds it here). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadmeSnippetsTest {

    @Test
    void isolatedWorkers() {
        IsolatedOptions options = IsolatedOptions.defaults()
                .withMaxHeap("256m")
                .withPoolOptions(PoolOptions.defaults().withTaskTimeout(Duration.ofSeconds(30)))
                .register(Point.class);                                      // a record crosses once registered
        try (Pool pool = Isolated.workers(2, options)) {                     // two child JVMs, ready
            Point mirrored = pool.run(Jobs.mirror.call(new Point(1, 2)));    // runs in a worker JVM
            assertEquals(new Point(2, 1), mirrored);
            try {
                pool.run(Jobs.halt.call(7));                                 // Runtime.halt(7) in a worker JVM...
                fail("the worker JVM halted");
            } catch (TaskFailedException failed) {
                // ...fails this task alone, with a WorkerDiedException: "…'s JVM (pid …) died with
                // exit status 7 while running task …Jobs#halt; a new JVM replaces it. Its last output: …"
                assertInstanceOf(WorkerDiedException.class, failed.getCause());
            }
            int nine = pool.run(Jobs.square.call(3));                        // and the pool goes on
            assertEquals(9, nine);
        }
    }

    @Test
    void sharedMemoryAcrossProcesses() {
        try (Pool pool = Isolated.workers(2)) {
            Mutex mutex = shared(Shared.mutex);                              // allocated while an isolated pool
            Struct<Tally> tally = shared(new Tally(0, 0));                   // is open: in a file its JVMs map
            List<CompletableFuture<Long>> tasks = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {                     // one task in each worker JVM,
                tasks.add(pool.submit(assign(worker, SharedJobs.update.call(mutex, tally, 10_000))));
            }                                                                // each: lock, load, store, unlock
            tasks.forEach(CompletableFuture::join);
            Tally total = tally.load();                                      // Tally[count=20000, check=40000]
            assertEquals(new Tally(20_000, 40_000), total);
        }
    }
}
