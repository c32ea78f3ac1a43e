package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Pool;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * More tasks than the request ring holds while the worker JVM's reader is held: the pump sleeps on
 * the full ring (the child rings it when it has made room; a ring lost to the race costs a bounded
 * wait), then sends the rest, so every task runs, once, with its own argument.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FullRequestRingTest {

    @Test
    void theTasksBeyondAFullRequestRingAllRunOnceTheReaderReadsOn() throws Exception {
        String big = "x".repeat(100_000); // about ten fill the 1 MiB request ring
        for (int round = 0; round < 5; round++) {
            try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().register(FaultJobs.Gate.class));
                    ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                CompletableFuture<String> held = pool.submit(Jobs.describe.call(new FaultJobs.Gate(gate.getLocalPort())));
                List<CompletableFuture<String>> queued = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    queued.add(pool.submit(Jobs.describe.call(i + big)));
                }
                try (Socket reader = gate.accept()) {
                    assertEquals(1, reader.getInputStream().read(), "the reader decodes the first task");
                    reader.getOutputStream().write(1);
                }
                assertEquals("gate", held.get(60, TimeUnit.SECONDS));
                for (int i = 0; i < queued.size(); i++) {
                    assertEquals(i + big, queued.get(i).get(60, TimeUnit.SECONDS), "round " + round + ", task " + i);
                }
            }
        }
    }
}
