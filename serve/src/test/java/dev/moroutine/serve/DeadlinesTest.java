package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
}
