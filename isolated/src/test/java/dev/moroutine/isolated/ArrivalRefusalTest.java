package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task the worker JVM cannot decode is refused by its reader on arrival, beside the task it runs
 * (Child's "Threads"): its caller hears of the refusal while the running task goes on, not only
 * once that task has answered, which may be never if the caller waits for the refusal first.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ArrivalRefusalTest {

    @Test
    void aTaskTheChildCannotDecodeFailsWhileAnotherTaskRuns() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withSystemProperty(MissingJobs.MISSING, "true"));
                ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            CompletableFuture<Integer> running = pool.submit(Jobs.block.call(gate.getLocalPort()));
            try (Socket started = gate.accept()) {
                assertEquals(1, started.getInputStream().read(), "the blocking task has started");
                CompletableFuture<String> refused = pool.submit(MissingJobs.present.call());
                ExecutionException failure = assertThrows(ExecutionException.class, () -> refused.get(20, TimeUnit.SECONDS),
                        "the child refuses the task on arrival, while the blocking task still runs");
                assertTrue(failure.getCause().getMessage().contains("moroutine dev.moroutine.isolated.MissingJobs#present cannot be"
                        + " found in this process"), failure.getCause().getMessage());
                started.getOutputStream().write(1); // only now lets the blocking task return
            }
            assertEquals(gate.getLocalPort(), running.get(60, TimeUnit.SECONDS));
        }
    }
}
