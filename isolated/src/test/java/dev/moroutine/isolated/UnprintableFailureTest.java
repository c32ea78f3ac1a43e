package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task that throws an exception whose {@code getMessage()} throws: on threads its future fails
 * with it; on a worker JVM the failure must still be answered, else the task is never settled.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnprintableFailureTest {

    @Test
    void aFailureWhoseMessageThrowsStillSettlesTheTask() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults())) {
            long pid = pool.run(Jobs.pid.call());
            CompletableFuture<String> failing = pool.submit(FaultJobs.throwUnprintable.call());
            try {
                failing.get(30, TimeUnit.SECONDS);
                fail("it succeeded");
            } catch (ExecutionException settled) {
                String crossed = String.valueOf(settled.getCause());
                assertTrue(crossed.contains(FaultJobs.UnprintableException.class.getName()), crossed);
                assertTrue(crossed.contains("(its getMessage() threw)"), crossed);
            } catch (TimeoutException stuck) {
                int active = pool.workers().get(0).activeCount();
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // its death settles it, so close() ends
                fail("the task was not settled within 30 s (active count " + active + ")");
            }
            assertEquals(49, pool.run(Jobs.square.call(7)));
            assertEquals(0, pool.workers().get(0).activeCount());
        }
    }
}
