package dev.moroutine.isolated;

import static dev.moroutine.stream.Streaming.channel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task sent to a worker JVM starts whatever the decoding of the requests sent after it costs
 * (a record's constructor, a class's initializer, a large argument): the worker thread must not
 * decode the next task, nor its own stream argument's items, before it runs the task.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BatchHeadOfLineTest {

    private static final int ROUNDS = 100;
    private static final int START_WAIT_MILLIS = 3_000;

    /** Sends what a round needs: the task that must start (it connects to {@code startPort}) first, then any other. */
    private interface Round {
        List<CompletableFuture<Integer>> send(Pool pool, int startPort, BatchJobs.HeldDecode held);
    }

    @Test
    void aTaskStartsWhileTheDecodingOfTheNextOneIsHeld() throws Exception {
        String padding = "x".repeat(100_000);
        startsWhileADecodingIsHeld("the task sent after it", (pool, startPort, held) -> List.of(
                pool.submit(BatchJobs.blockPadded.call(startPort, padding)), pool.submit(BatchJobs.held.call(held))));
    }

    @Test
    void aTaskStartsWhileTheDecodingOfItsStreamArgumentsItemsIsHeld() throws Exception {
        String padding = "x".repeat(100_000);
        startsWhileADecodingIsHeld("its stream argument's item", (pool, startPort, held) -> List.of(
                pool.submit(BatchJobs.startThenRead.call(startPort, padding, channel(List.of(held))))));
    }

    /**
     * Runs a task that waits for the test long enough for the reader to fall asleep, and waits for its
     * answer: the worker thread then waits for its next task reading the requests itself.
     */
    private static void idleAfterALongTask(Pool pool, ServerSocket gate) throws Exception {
        CompletableFuture<Integer> before = pool.submit(Jobs.block.call(gate.getLocalPort()));
        try (Socket running = gate.accept()) {
            assertEquals(1, running.getInputStream().read());
            running.getOutputStream().write(1);
        }
        assertEquals(gate.getLocalPort(), before.get(30, TimeUnit.SECONDS));
    }

    /**
     * Each round, the worker thread reads the requests itself (it idles after a task that ran long
     * enough for the reader to fall asleep), and the round's first task must start while a decoding
     * the round caused, which the test holds, is not done.
     */
    private void startsWhileADecodingIsHeld(String held, Round round) throws Exception {
        long pid = ProcessHandle.current().pid();
        Pool pool = Isolated.workers(1, IsolatedOptions.defaults().register(BatchJobs.HeldDecode.class));
        try (ServerSocket startGate = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
                ServerSocket decodeGate = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
                ServerSocket beforeGate = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            decodeGate.setSoTimeout(60_000);
            beforeGate.setSoTimeout(60_000);
            for (int r = 0; r < ROUNDS; r++) {
                idleAfterALongTask(pool, beforeGate);
                List<CompletableFuture<Integer>> sent = round.send(pool, startGate.getLocalPort(),
                        new BatchJobs.HeldDecode(decodeGate.getLocalPort(), pid));
                Socket started = null;
                startGate.setSoTimeout(START_WAIT_MILLIS);
                try {
                    started = startGate.accept();
                } catch (SocketTimeoutException notStarted) {
                    // below, once the decoding is let go
                }
                String decoder;
                try (Socket decoding = decodeGate.accept()) {
                    decoder = new BufferedReader(new InputStreamReader(decoding.getInputStream(), StandardCharsets.UTF_8)).readLine();
                    decoding.getOutputStream().write(1);
                }
                boolean stuck = started == null;
                if (stuck) {
                    startGate.setSoTimeout(60_000);
                    started = startGate.accept();
                }
                try (Socket s = started) {
                    assertEquals(1, s.getInputStream().read());
                    s.getOutputStream().write(1);
                }
                assertEquals(startGate.getLocalPort(), sent.get(0).get(30, TimeUnit.SECONDS));
                for (CompletableFuture<Integer> other : sent.subList(1, sent.size())) {
                    assertEquals(decodeGate.getLocalPort(), other.get(30, TimeUnit.SECONDS));
                }
                if (stuck) {
                    fail("round " + r + ": the task did not start within " + START_WAIT_MILLIS + " ms while the decoding of "
                            + held + " was held (decoded on thread '" + decoder + "')");
                }
            }
        } finally {
            pool.close();
        }
    }

    @Test
    void aQuickTaskWithATimeoutIsNotTimedOutByTheDecodingOfTheNextOne() throws Exception {
        long pid = ProcessHandle.current().pid();
        Pool pool = Isolated.workers(1, IsolatedOptions.defaults().register(BatchJobs.HeldDecode.class));
        AtomicReference<CountDownLatch> go = new AtomicReference<>();
        try (ServerSocket decodeGate = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
                ServerSocket beforeGate = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            beforeGate.setSoTimeout(60_000);
            // Holds each decoding of a second task until the round lets it go (a killed JVM's successor decodes it again).
            Thread releaser = Thread.ofPlatform().daemon().start(() -> {
                for (;;) {
                    try (Socket decoding = decodeGate.accept()) {
                        new BufferedReader(new InputStreamReader(decoding.getInputStream(), StandardCharsets.UTF_8)).readLine();
                        go.get().await();
                        decoding.getOutputStream().write(1);
                        decoding.getInputStream().read(); // until the decoding closes its end
                    } catch (java.io.IOException | InterruptedException e) {
                        if (decodeGate.isClosed()) {
                            return;
                        }
                    }
                }
            });
            for (int round = 0; round < ROUNDS; round++) {
                idleAfterALongTask(pool, beforeGate);
                go.set(new CountDownLatch(1));
                CompletableFuture<Integer> quick = pool.submit(Jobs.square.call(7).withTimeout(Duration.ofSeconds(2)));
                CompletableFuture<Integer> second = pool.submit(BatchJobs.held.call(new BatchJobs.HeldDecode(decodeGate.getLocalPort(), pid)));
                Throwable failed = null;
                try {
                    assertEquals(49, quick.get(30, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    failed = e.getCause();
                }
                go.get().countDown();
                assertEquals(decodeGate.getLocalPort(), second.get(30, TimeUnit.SECONDS));
                if (failed != null) {
                    fail("round " + round + ": square(7), which runs for microseconds, failed: " + failed, failed);
                }
            }
            assertTrue(releaser.isAlive());
        } finally {
            pool.close();
        }
    }
}
