package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A client that shuts its output after its requests (a half-close) still gets every answer, then the server closes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HalfCloseTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    static final Mo1<Request, Response> ok = mo(request -> Response.text("ok " + request.path()));

    static final CountDownLatch RELEASE = new CountDownLatch(1);
    /** Answers {@code /held} only once the test has seen the server read the client's half-close. */
    static final Mo1<Request, Response> held = mo(request -> {
        if (request.path().equals("/held")) {
            RELEASE.await();
        }
        return Response.text("ok " + request.path());
    });

    @Test
    void answersPipelinedRequestsSentBeforeAHalfCloseThenCloses() throws Exception {
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1));
                RawClient raw = new RawClient(server.port())) {
            raw.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n").shutdownOutput();
            List<RawClient.Reply> replies = raw.read(2, WAIT);
            assertEquals("ok /a", replies.get(0).body());
            assertEquals("ok /b", replies.get(1).body());
            assertTrue(raw.closedByServer(WAIT), "closed after the last answer");
        }
    }

    @Test
    void answersARequestStillRunningWhenTheClientHalfCloses() throws Exception {
        Logger logger = Logger.getLogger(Server.class.getName());
        Level level = logger.getLevel();
        try (Server server = Server.start(held, ServerOptions.defaults().withWorkers(1));
                LogCapture log = new LogCapture();
                RawClient raw = new RawClient(server.port())) {
            logger.setLevel(Level.FINE); // the server says at DEBUG when it reads a half-close
            raw.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n").shutdownOutput();
            Await.until(() -> log.records().stream().anyMatch(r -> r.getMessage().contains("shut its output")), WAIT,
                    () -> "the server reads the half-close while the handler runs: " + log.records());
            RELEASE.countDown();
            RawClient.Reply reply = raw.read(WAIT);
            assertEquals("ok /held", reply.body());
            assertEquals("close", reply.header("connection"));
            assertTrue(raw.closedByServer(WAIT));
            assertEquals(1, server.threads().getFirst().requestsServed());
        } finally {
            logger.setLevel(level);
            RELEASE.countDown();
        }
    }

    @Test
    void closesAtOnceAHalfClosedConnectionThatIsOwedNothing() throws Exception {
        try (Server server = Server.start(ok, ServerOptions.defaults().withWorkers(1));
                RawClient raw = new RawClient(server.port())) {
            assertEquals("ok /a", raw.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body());
            raw.shutdownOutput();
            assertTrue(raw.closedByServer(WAIT));
            Await.until(() -> server.threads().getFirst().connections() == 0, WAIT, () -> "closed: " + server.threads());
        }
    }
}
