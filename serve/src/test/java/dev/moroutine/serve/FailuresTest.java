package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.moroutine.Mo1;
import dev.moroutine.PoolOptions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A failing handler costs its client a 500 and nothing else: the worker and the other connections go on. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailuresTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    static final Mo1<Request, Response> fragile = mo(request -> switch (request.path()) {
        case "/throw" -> throw new IllegalStateException("secret detail of the failure");
        case "/null" -> null;
        case "/slow" -> {
            new CountDownLatch(1).await(); // never released: the pool's task timeout interrupts it
            yield Response.text("never");
        }
        default -> Response.text("fine " + Thread.currentThread().getName());
    });

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    @Test
    void answersAThrowingHandlerWith500AndGoesOn() throws Exception {
        try (LogCapture log = new LogCapture();
                Server server = Server.start(fragile, ServerOptions.defaults().withWorkers(1));
                RawClient raw = new RawClient(server.port());
                RawClient other = new RawClient(server.port())) {
            String before = raw.send(get("/")).read(WAIT).body();
            RawClient.Reply failed = raw.send(get("/throw")).read(WAIT);
            assertEquals(500, failed.status());
            assertEquals("500 Internal Server Error", failed.body(), "no stack, no message: nothing of the failure leaks");
            assertEquals(before, raw.send(get("/")).read(WAIT).body(), "the same connection and worker go on");
            assertEquals(before, other.send(get("/")).read(WAIT).body(), "and so do the other connections");
            assertEquals(1, log.records().size());
            LogRecord record = log.records().getFirst();
            assertEquals(Level.WARNING, record.getLevel());
            assertEquals("the handler of GET /throw on moroutine-serve-worker-0 failed; the client got a 500", record.getMessage());
            assertEquals("secret detail of the failure", record.getThrown().getMessage());
            assertEquals(4, server.threads().getFirst().requestsServed(), "the 500 counts as served");
        }
    }

    @Test
    void answersANullResponseWith500() throws Exception {
        try (LogCapture log = new LogCapture();
                Server server = Server.start(fragile, ServerOptions.defaults().withWorkers(1));
                RawClient raw = new RawClient(server.port())) {
            assertEquals(500, raw.send(get("/null")).read(WAIT).status());
            assertEquals(200, raw.send(get("/")).read(WAIT).status());
            assertEquals("the handler of GET /null on moroutine-serve-worker-0 returned null instead of a Response;"
                    + " the client got a 500", log.records().getFirst().getMessage());
        }
    }

    @Test
    void answersAHandlerThatCannotMakeItsTaskWith500() throws Exception {
        Handler broken = request -> request.path().equals("/none") ? null : fragile.call(request);
        try (LogCapture log = new LogCapture();
                Server server = Server.start(broken, ServerOptions.defaults().withWorkers(1));
                RawClient raw = new RawClient(server.port())) {
            assertEquals(500, raw.send(get("/none")).read(WAIT).status());
            assertEquals(200, raw.send(get("/")).read(WAIT).status());
            assertEquals("the handler returned no task for GET /none; return a moroutine's call(…), such as handle.call(request)",
                    log.records().getFirst().getThrown().getMessage());
        }
    }

    @Test
    void answersAHandlerOverThePoolsTaskTimeoutWith500() throws Exception {
        ServerOptions options = ServerOptions.defaults().withWorkers(1)
                .withPoolOptions(PoolOptions.defaults().withTaskTimeout(Duration.ofMillis(200)));
        try (LogCapture log = new LogCapture();
                Server server = Server.start(fragile, options);
                RawClient raw = new RawClient(server.port())) {
            assertEquals(500, raw.send(get("/slow")).read(WAIT).status());
            assertEquals(200, raw.send(get("/")).read(WAIT).status(), "the interrupted worker goes on");
            assertSame(TimeoutException.class, log.records().getFirst().getThrown().getClass());
        }
    }
}
