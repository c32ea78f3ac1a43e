package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** close() drains: no new connections, idle ones closed at once, in-flight requests finish; past the timeout, cut. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DrainTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    static volatile CountDownLatch started;
    static volatile CountDownLatch release;
    static volatile CountDownLatch interrupted;

    /** {@code /hold} waits for the test; everything else answers at once. */
    static final Mo1<Request, Response> hold = mo(request -> {
        if (!request.path().equals("/hold")) {
            return Response.text("quick");
        }
        started.countDown();
        try {
            release.await();
        } catch (InterruptedException cut) {
            interrupted.countDown();
            throw cut;
        }
        return Response.text("held");
    });

    @BeforeEach
    void latches() {
        started = new CountDownLatch(1);
        release = new CountDownLatch(1);
        interrupted = new CountDownLatch(1);
    }

    /**
     * A connection made once close() has closed the listener is refused; or, made in the moment
     * after, while NIO still holds the listening socket open until the I/O thread's next select (a
     * closed channel's socket is released when its key is deregistered), it is reset unanswered.
     */
    private static void assertNoNewConnectionServed(int port) throws IOException {
        try (RawClient late = new RawClient(port)) {
            late.send(get("/"));
            AssertionError unanswered = assertThrows(AssertionError.class, () -> late.read(WAIT), "no new connections");
            assertTrue(unanswered.getMessage().contains("closed the connection"), unanswered.getMessage());
        } catch (SocketException refusedOrReset) {
            String why = String.valueOf(refusedOrReset.getMessage());
            assertTrue(refusedOrReset instanceof ConnectException || why.contains("reset") || why.contains("Broken pipe"),
                    refusedOrReset.toString());
        }
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    @Test
    void letsInFlightRequestsFinishAndClosesIdleConnectionsAtOnce() throws Exception {
        Server server = Server.start(hold, ServerOptions.defaults().withWorkers(2));
        int port = server.port();
        try (RawClient busy = new RawClient(port); RawClient idle = new RawClient(port)) {
            assertEquals("quick", idle.send(get("/")).read(WAIT).body());
            busy.send(get("/hold"));
            assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
            assertTrue(idle.closedByServer(WAIT), "an idle keep-alive connection is closed at once");
            assertNoNewConnectionServed(port);
            assertFalse(closing.isDone(), "close() waits for the request in flight");
            release.countDown();
            RawClient.Reply reply = busy.read(WAIT);
            assertEquals("held", reply.body());
            assertEquals("close", reply.header("connection"), "the last answer of a draining connection ends it");
            assertTrue(busy.closedByServer(WAIT));
            closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(server.isClosed());
            assertEquals(1, interrupted.getCount(), "the finished request was never interrupted");
        }
    }

    @Test
    void cutsAStuckHandlerAtTheDrainTimeout() throws Exception {
        Duration drain = Duration.ofMillis(300);
        Server server = Server.start(hold, ServerOptions.defaults().withWorkers(1).withDrainTimeout(drain));
        try (LogCapture log = new LogCapture(); RawClient stuck = new RawClient(server.port())) {
            stuck.send(get("/hold"));
            assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            long closing = System.nanoTime();
            server.close();
            long took = System.nanoTime() - closing;
            assertTrue(took >= drain.toNanos(), "close() waited for the drain timeout: " + Duration.ofNanos(took));
            assertTrue(stuck.closedByServer(WAIT), "the connection was closed");
            assertTrue(interrupted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the stuck handler was interrupted");
            assertEquals("1 connections still open and 1 requests running after the drain timeout of PT0.3S; closing them",
                    log.records().getFirst().getMessage());
        }
    }

    @Test
    void cutsAHandlerWhoseClientWentAwayAtTheDrainTimeout() throws Exception {
        Duration drain = Duration.ofMillis(300);
        Server server = Server.start(hold, ServerOptions.defaults().withWorkers(1).withDrainTimeout(drain));
        try (LogCapture log = new LogCapture()) {
            RawClient gone = new RawClient(server.port());
            gone.send(get("/hold"));
            assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            gone.reset(); // a plain close would be a half-close, after which the server still owes the answer
            Await.until(() -> server.threads().getFirst().connections() == 0, WAIT, () -> "the server saw the client go");
            assertTimeoutPreemptively(WAIT, server::close, "close() waits for the handler only until the drain timeout");
            assertTrue(interrupted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the handler was interrupted");
            assertEquals("0 connections still open and 1 requests running after the drain timeout of PT0.3S; closing them",
                    log.records().getFirst().getMessage());
        }
    }

    @Test
    void terminateClosesEverythingAtOnce() throws Exception {
        Server server = Server.start(hold, ServerOptions.defaults().withWorkers(1));
        try (RawClient stuck = new RawClient(server.port())) {
            stuck.send(get("/hold"));
            assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            server.terminate();
            assertTrue(server.isClosed());
            assertTrue(stuck.closedByServer(WAIT));
            assertTrue(interrupted.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            server.close(); // after terminate(): returns at once
        }
    }

    @Test
    void closeWithNothingOpenReturnsPromptly() throws IOException {
        Server server = Server.start(hold, ServerOptions.defaults().withWorkers(1));
        try (RawClient raw = new RawClient(server.port())) {
            assertEquals("quick", raw.send(get("/")).read(WAIT).body());
        }
        assertTimeoutPreemptively(WAIT, server::close);
    }

    @Test
    void refusesACloseFromAnIoThreadAndStaysClosable() throws Exception {
        AtomicReference<Server> self = new AtomicReference<>();
        Handler closesItself = request -> {
            self.get().close(); // a handler makes its task on an I/O thread: close() would wait for itself
            return hold.call(request);
        };
        try (LogCapture log = new LogCapture()) {
            Server server = Server.start(closesItself, ServerOptions.defaults().withWorkers(1).withDrainTimeout(Duration.ofMillis(300)));
            self.set(server);
            try (RawClient raw = new RawClient(server.port())) {
                assertEquals(500, raw.send(get("/")).read(WAIT).status());
            }
            assertFalse(server.isClosed(), "the refused close() changed nothing");
            assertTimeoutPreemptively(WAIT, server::close, "the server can still be closed from another thread");
            LogRecord record = log.records().getFirst();
            assertEquals(IllegalStateException.class, record.getThrown().getClass());
            assertEquals("close() was called on one of the server's I/O threads (by a Handler, say), where it would wait"
                    + " for itself; call it from another thread, or call terminate()", record.getThrown().getMessage());
        }
    }
}
