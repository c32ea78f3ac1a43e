package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A handler that throws a RuntimeException while making its task, in a read that holds requests
 * pipelined after it: its 500 is answered in its turn, and a drain that begins meanwhile still ends
 * the connection. (Were the 500 set as the request is decoded, in the middle of the read, the drain
 * would start there and keep a partial request read after it waiting for a body it never reads.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DecodeTimeFailureTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    static final Mo1<Request, Response> echo = mo(request -> Response.text("ok " + request.path()));

    static volatile CountDownLatch started;
    static volatile CountDownLatch release;

    /** {@code /slow} waits on its worker for the test; the rest echo. */
    static final Mo1<Request, Response> slow = mo(request -> {
        if (request.path().equals("/slow")) {
            started.countDown();
            release.await();
        }
        return Response.text("ok " + request.path());
    });

    static volatile CountDownLatch entered;
    static volatile CountDownLatch go;

    /** {@code /hold} holds the I/O thread until the test lets it go; {@code /fail} throws; the rest echo. */
    static final Handler handler = request -> {
        if (request.path().equals("/hold")) {
            entered.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        } else if (request.path().equals("/fail")) {
            throw new IllegalStateException("a failing handler");
        }
        return request.path().equals("/slow") ? slow.call(request) : echo.call(request);
    };

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    /**
     * close() has begun (its drain task has not reached the connection yet) when a read brings
     * {@code /hold}, {@code /fail} and the head of a POST whose body is still to come. The 500 for
     * {@code /fail}, set as it is decoded, drains the connection in the middle of that read, so
     * the POST's head, decoded after the drain, becomes an exchange that the drain never drops:
     * its body can never arrive (reading is off), so the connection never ends, and close() waits
     * for its whole drain timeout. When the handler ran at the end of the pass, the drain dropped
     * the POST, the 500 said {@code Connection: close} and close() returned at once.
     */
    @Test
    void aHandlerFailureDuringCloseDoesNotKeepTheConnectionOpenForAPartialRequestAfterIt() throws Exception {
        entered = new CountDownLatch(1);
        go = new CountDownLatch(1);
        ServerOptions options = ServerOptions.defaults().withWorkers(1).withIoThreads(1).withDrainTimeout(Duration.ofSeconds(30));
        Server server = Server.start(handler, options);
        CompletableFuture<Void> closing = null;
        try (LogCapture log = new LogCapture(); RawClient raw = new RawClient(server.port())) {
            raw.send(get("/hold") + get("/fail") + "POST /late HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab");
            assertTrue(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            closing = CompletableFuture.runAsync(server::close);
            Await.until(server::closing, WAIT, () -> "close() did not begin");
            go.countDown();
            List<RawClient.Reply> replies = raw.read(2, WAIT);
            assertEquals("ok /hold", replies.get(0).body());
            assertEquals(500, replies.get(1).status());
            assertTrue(log.records().stream().anyMatch(r -> r.getMessage().contains("GET /fail")), "the failure is logged");
            assertEquals("close", replies.get(1).header("connection"), "the last answer of a draining connection ends it");
            assertTrue(raw.closedByServer(WAIT), "the draining connection closes after its last answer");
            closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            go.countDown();
            server.terminate();
        }
    }

    /** The 500 set while {@code /fail} is decoded waits for the answer to the request before it. */
    @Test
    void aFailureInTheMiddleOfAPipelineIsAnsweredInItsTurn() throws Exception {
        started = new CountDownLatch(1);
        release = new CountDownLatch(1);
        try (LogCapture log = new LogCapture();
                Server server = Server.start(handler, ServerOptions.defaults().withWorkers(1).withIoThreads(1));
                RawClient raw = new RawClient(server.port())) {
            raw.send(get("/slow") + get("/fail") + get("/after"));
            assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            release.countDown();
            List<RawClient.Reply> replies = raw.read(3, WAIT);
            assertEquals(List.of("ok /slow", "500 Internal Server Error", "ok /after"),
                    replies.stream().map(RawClient.Reply::body).toList());
            assertEquals(1, log.records().size(), "the failure is logged once");
        } finally {
            release.countDown();
        }
    }
}
