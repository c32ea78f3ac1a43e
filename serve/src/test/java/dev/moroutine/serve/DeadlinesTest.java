package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The header deadline cuts slowloris clients without holding anyone else up; the idle timeout closes silent connections. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeadlinesTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    static final Duration HEADER_TIMEOUT = Duration.ofSeconds(1);

    static final Mo1<Request, Response> ok = mo(request -> Response.text("ok " + request.path()));

    static final CountDownLatch SLOW_STARTED = new CountDownLatch(1);
    static final CountDownLatch SLOW_RELEASE = new CountDownLatch(1);

    /** Holds its worker until the test releases it. */
    static final Mo1<Request, Response> slow = mo(request -> {
        SLOW_STARTED.countDown();
        SLOW_RELEASE.await();
        return Response.text("slow done");
    });

    @Test
    void cutsAClientThatDribblesItsHeadersWhileOthersAreServed() throws Exception {
        ScheduledExecutorService dribbler = Executors.newSingleThreadScheduledExecutor();
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1).withHeaderTimeout(HEADER_TIMEOUT));
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            long started = System.nanoTime(); // a connection's first request is due within the deadline from the connect
            RawClient slowloris = new RawClient(server.port());
            slowloris.send("GET / HTTP/1.1\r\nHost: x\r\n");
            byte[] dribble = "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".getBytes();
            int[] sent = {0};
            ScheduledFuture<?> dribbling = dribbler.scheduleAtFixedRate(() -> {
                try {
                    slowloris.send(new byte[] {dribble[sent[0]++ % dribble.length]}); // one byte every 50 ms: never done
                } catch (IOException closed) {
                    throw new IllegalStateException(closed); // ends the schedule
                }
            }, 50, 50, TimeUnit.MILLISECONDS);
            for (int i = 0; i < 20; i++) { // the same (only) worker and I/O thread serve everyone else meanwhile
                var response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/" + i))
                        .timeout(WAIT).build(), BodyHandlers.ofString());
                assertEquals("ok /" + i, response.body());
            }
            RawClient.Reply cut = slowloris.read(WAIT);
            long took = System.nanoTime() - started;
            assertEquals(408, cut.status());
            assertEquals("close", cut.header("connection"));
            assertTrue(slowloris.closedByServer(WAIT));
            assertTrue(took >= HEADER_TIMEOUT.toNanos(), "not before the header deadline: " + Duration.ofNanos(took));
            dribbling.cancel(false);
            slowloris.close();
        } finally {
            dribbler.shutdownNow();
        }
    }

    static final Duration BODY_TIMEOUT = Duration.ofSeconds(1);

    @Test
    void cutsAClientThatDribblesABodyWhileOthersAreServed() throws Exception {
        ScheduledExecutorService dribbler = Executors.newSingleThreadScheduledExecutor();
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1).withBodyTimeout(BODY_TIMEOUT));
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                RawClient slow = new RawClient(server.port())) {
            // An earlier request on the same connection is answered first; the body after it never ends in time.
            slow.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\nPOST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n");
            long started = System.nanoTime();
            ScheduledFuture<?> dribbling = dribbler.scheduleAtFixedRate(() -> {
                try {
                    slow.send(new byte[] {'a'}); // a byte every 20 ms: never silent, never done within the deadline
                } catch (IOException closed) {
                    throw new IllegalStateException(closed); // ends the schedule
                }
            }, 20, 20, TimeUnit.MILLISECONDS);
            for (int i = 0; i < 20; i++) { // the same (only) worker and I/O thread serve everyone else meanwhile
                var response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/" + i))
                        .timeout(WAIT).build(), BodyHandlers.ofString());
                assertEquals("ok /" + i, response.body());
            }
            List<RawClient.Reply> replies = slow.read(2, WAIT);
            long took = System.nanoTime() - started;
            assertEquals("ok /first", replies.get(0).body());
            assertEquals(408, replies.get(1).status());
            assertEquals("close", replies.get(1).header("connection"));
            assertTrue(slow.closedByServer(WAIT));
            assertTrue(took >= BODY_TIMEOUT.toNanos(), "not before the body deadline: " + Duration.ofNanos(took));
            assertEquals(21, server.threads().getFirst().requestsServed(), "the slow body never reached the handler");
            dribbling.cancel(false);
        } finally {
            dribbler.shutdownNow();
        }
    }

    @Test
    void takesABodyThatArrivesWithinTheDeadlineInParts() throws Exception {
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1).withBodyTimeout(BODY_TIMEOUT));
                RawClient raw = new RawClient(server.port())) {
            raw.send("POST /parts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
            raw.send("3\r\ndef\r\n0\r\n\r\n");
            assertEquals("ok /parts", raw.read(WAIT).body());
            assertEquals("ok /next", raw.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body());
        }
    }

    @Test
    void cutsAConnectionThatSendsNoRequest() throws Exception {
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1).withHeaderTimeout(HEADER_TIMEOUT));
                RawClient silent = new RawClient(server.port())) {
            assertEquals(408, silent.read(WAIT).status());
            assertTrue(silent.closedByServer(WAIT));
        }
    }

    @Test
    void givesEachPipelinedRequestItsOwnHeaderDeadline() throws Exception {
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1).withHeaderTimeout(HEADER_TIMEOUT));
                RawClient raw = new RawClient(server.port())) {
            raw.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\n"); // the second head stops half-way
            assertEquals("ok /1", raw.read(WAIT).body());
            assertEquals(408, raw.read(WAIT).status());
            assertTrue(raw.closedByServer(WAIT));
        }
    }

    @Test
    void closesAConnectionIdleBetweenRequests() throws Exception {
        Duration idle = Duration.ofMillis(500);
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1).withIdleTimeout(idle));
                RawClient raw = new RawClient(server.port())) {
            long sent = System.nanoTime(); // the server's last read comes after this
            assertEquals("ok /", raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body());
            assertTrue(raw.closedByServer(WAIT));
            assertTrue(System.nanoTime() - sent >= idle.toNanos(), "not before the idle timeout");
        }
    }

    @Test
    void keepsAConnectionWhoseHandlerRunsLongerThanTheIdleTimeout() throws Exception {
        Duration idle = Duration.ofMillis(300);
        try (Server server = Server.start(slow, ServerOptions.defaults().withWorkers(1).withIdleTimeout(idle));
                RawClient raw = new RawClient(server.port())) {
            raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            assertTrue(SLOW_STARTED.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertFalse(raw.closedByServer(idle.multipliedBy(4)), "the server owes this client an answer");
            SLOW_RELEASE.countDown();
            assertEquals("slow done", raw.read(WAIT).body());
        }
    }

    /** Busy with {@code /0} for three times {@link #PAUSE_HEADER_TIMEOUT}: a slow handler, not a wait for an event. */
    static final Duration PAUSE_HEADER_TIMEOUT = Duration.ofMillis(300);
    static final CountDownLatch FIRST_STARTED = new CountDownLatch(1);
    static final Mo1<Request, Response> slowFirst = mo(request -> {
        FIRST_STARTED.countDown();
        long until = System.nanoTime() + 3 * PAUSE_HEADER_TIMEOUT.toNanos();
        for (long left; request.path().equals("/0") && (left = until - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
        return Response.text("ok " + request.path());
    });

    @Test
    void doesNotCutAPipelineWhileTheServerItselfHasStoppedReadingIt() throws Exception {
        StringBuilder pipelined = new StringBuilder();
        int full = Connection.MAX_PIPELINED;
        for (int i = 0; i < full; i++) {
            pipelined.append("GET /").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        try (Server server = Server.start(slowFirst,
                        ServerOptions.defaults().withWorkers(1).withHeaderTimeout(PAUSE_HEADER_TIMEOUT));
                RawClient raw = new RawClient(server.port())) {
            // The server stops reading at MAX_PIPELINED unanswered requests, amid the next head: the rest of it waits
            // in the socket, unread, for longer than the header timeout, through no fault of the client.
            raw.send(pipelined + "GET /" + full + " HTTP/1.1\r\nHo");
            assertTrue(FIRST_STARTED.await(WAIT.toSeconds(), TimeUnit.SECONDS)); // so that read, and the reading stopped
            raw.send("st: x\r\n\r\n");
            List<RawClient.Reply> replies = raw.read(full + 1, WAIT);
            for (int i = 0; i <= full; i++) {
                assertEquals("ok /" + i, replies.get(i).body());
            }
        }
    }

    static final int BIG = 32 << 20;
    static final Mo1<Request, Response> big = mo(request -> Response.of(200, "application/octet-stream", new byte[BIG]));

    @Test
    void doesNotCutAResponseThatAClientIsStillReading() throws Exception {
        // Long enough that a reader descheduled on a loaded 2-core machine still counts as reading.
        Duration idle = Duration.ofSeconds(1);
        try (Server server = Server.start(big, ServerOptions.defaults().withWorkers(1).withIdleTimeout(idle));
                Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            // A slow but steady client: it takes several idle timeouts to read a body bigger than the socket buffers, so
            // the server writes it long after its last read.
            socket.setSoTimeout((int) WAIT.toMillis());
            InputStream in = socket.getInputStream();
            long received = 0;
            byte[] buffer = new byte[1 << 16];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    received += n;
                    if (received % (1 << 20) < n) {
                        LockSupport.parkNanos(idle.dividedBy(6).toNanos()); // a pause per MiB: 5.3 s for the whole body
                    }
                }
            } catch (SocketException reset) { // the server closed with the rest of the answer unsent
            }
            assertTrue(received > BIG, "got " + received + " bytes of a " + BIG + "-byte body and its head");
        }
    }

    @Test
    void closesAConnectionWhoseClientStopsReadingItsResponse() throws Exception {
        Duration idle = Duration.ofMillis(300);
        try (Server server = Server.start(big, ServerOptions.defaults().withWorkers(1).withIdleTimeout(idle));
                Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            Await.until(() -> server.threads().getFirst().acceptedConnections() == 1 && server.threads().getFirst().connections() == 0,
                    WAIT, () -> "a client that takes nothing of its answer for an idle timeout is cut: " + server.threads());
        }
    }
}
