package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Worker JVMs retired every few tasks while their JVMs (current ones and successors, at any
 * moment of a hand-over) are killed: each kill fails at most the one task that ran there, every
 * other task runs once, the active count returns to 0 and close() returns.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RetirementKillTest {

    @Test
    void killingCurrentAndSuccessorJvmsDuringRetirementsFailsAtMostOneTaskPerKill() throws Exception {
        Random random = new Random(42);
        Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withMaxTasksPerJvm(3)
                .withCrashLimit(10_000, Duration.ofSeconds(1)));
        int kills = 0;
        int failed = 0;
        try {
            for (int round = 0; round < 15; round++) {
                List<CompletableFuture<Integer>> tasks = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    tasks.add(pool.submit(Jobs.square.call(i)));
                }
                List<ProcessHandle> children = ProcessHandle.current().children().toList();
                if (!children.isEmpty()) {
                    ProcessHandle victim = children.get(random.nextInt(children.size()));
                    if (victim.destroyForcibly()) {
                        kills++;
                    }
                }
                for (int i = 0; i < tasks.size(); i++) {
                    try {
                        assertEquals(i * i, tasks.get(i).get(60, TimeUnit.SECONDS));
                    } catch (ExecutionException died) {
                        assertInstanceOf(dev.moroutine.WorkerDiedException.class, died.getCause());
                        failed++;
                    } catch (TimeoutException stuck) {
                        fail("round " + round + ": task " + i + " not settled within 60 s; active count "
                                + pool.workers().get(0).activeCount());
                    }
                }
                assertTrue(failed <= kills, failed + " tasks failed for " + kills + " kills");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (pool.workers().get(0).activeCount() != 0) {
                assertTrue(System.nanoTime() < deadline, "active count stuck at " + pool.workers().get(0).activeCount());
                Thread.onSpinWait();
            }
            assertEquals(49, pool.run(Jobs.square.call(7)));
        } finally {
            try {
                CompletableFuture.runAsync(pool::close).get(60, TimeUnit.SECONDS);
            } catch (TimeoutException hung) {
                fail("close() did not return within 60 s; active count " + pool.workers().get(0).activeCount());
            }
        }
    }
}
