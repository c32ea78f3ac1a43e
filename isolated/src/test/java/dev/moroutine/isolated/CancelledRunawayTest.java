package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task with a timeout that ignores interrupts, cancelled while it runs: the cancellation cannot
 * stop it, so its timeout must still kill its JVM, and the task behind it must run on the next.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CancelledRunawayTest {

    @Test
    void aCancelledRunawayIsStillStoppedByItsTimeout() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults());
                ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            long pid = pool.run(Jobs.pid.call());
            CompletableFuture<Integer> runaway = pool.submit(FaultJobs.startThenSpin.call(gate.getLocalPort())
                    .withTimeout(Duration.ofSeconds(1)));
            try (Socket started = gate.accept()) {
                assertEquals(1, started.getInputStream().read(), "the runaway has started");
            }
            assertTrue(runaway.cancel(true));
            CompletableFuture<Integer> behind = pool.submit(Jobs.square.call(7));
            try {
                assertEquals(49, behind.get(30, TimeUnit.SECONDS));
            } catch (TimeoutException stuck) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // so that close() ends
                fail("the task behind a cancelled runaway with a 1 s timeout did not run within 30 s: its JVM"
                        + " (pid " + pid + ") was never killed; activeCount " + pool.workers().get(0).activeCount());
            }
        }
    }
}
