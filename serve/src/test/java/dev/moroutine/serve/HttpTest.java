package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** HTTP/1.1 as a client sees it: keep-alive, pipelining, chunked bodies, 100-continue, HEAD, Connection: close. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    /** Echoes the request: method, target, body length and body; {@code /chunks} answers in three chunks. */
    static final Mo1<Request, Response> echo = mo(request -> {
        if (request.path().equals("/dated")) { // a handler's own Date stays
            return Response.text("dated").withHeader("Date", "Sun, 06 Nov 1994 08:49:37 GMT");
        }
        if (request.path().equals("/fields")) {
            return Response.text("fields").withHeader("X-Twice", "one").withHeader("X-Twice", "two")
                    .withHeader("Cache-Control", "no-store");
        }
        if (request.path().equals("/chunks")) {
            return Response.chunked(200, "text/plain", List.of("one,".getBytes(StandardCharsets.UTF_8),
                    "two,".getBytes(StandardCharsets.UTF_8), "three".getBytes(StandardCharsets.UTF_8)));
        }
        return Response.text(request.method() + " " + request.target() + " " + request.bodyText().length() + " "
                + request.bodyText()).withHeader("X-Worker", Thread.currentThread().getName());
    });

    static Server server;
    static HttpClient client;

    @BeforeAll
    static void start() {
        server = Server.start(echo, ServerOptions.defaults().withWorkers(2));
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static URI uri(String target) {
        return URI.create("http://127.0.0.1:" + server.port() + target);
    }

    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request, BodyHandlers.ofString());
    }

    @Test
    void answersOnTheReportedPort() throws Exception {
        assertTrue(server.port() > 0, "port 0 asks for any free port; the server reports the one it got");
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/hello?x=1")).timeout(WAIT).build());
        assertEquals(200, response.statusCode());
        assertEquals("GET /hello?x=1 0 ", response.body());
        assertEquals("text/plain; charset=utf-8", response.headers().firstValue("content-type").orElseThrow());
        assertTrue(response.headers().firstValue("x-worker").orElseThrow().startsWith("moroutine-serve-worker-"));
    }

    @Test
    void datesEveryAnswer() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            long before = Instant.now().getEpochSecond();
            RawClient.Reply ok = raw.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT);
            RawClient.Reply dated = raw.send("GET /dated HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT);
            RawClient.Reply refused = raw.send("GET /b HTTP/1.1\r\n\r\n").read(WAIT); // no Host: 400
            long after = Instant.now().getEpochSecond();
            assertEquals(400, refused.status());
            for (RawClient.Reply reply : List.of(ok, refused)) {
                String date = reply.header("date");
                assertTrue(date != null && date.matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT"),
                        "an IMF-fixdate (RFC 7231 §7.1.1.1): " + date);
                long at = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond();
                assertTrue(before <= at && at <= after, date + " is now");
            }
            assertEquals(List.of("Sun, 06 Nov 1994 08:49:37 GMT"), dated.headers().getAll("date"));
        }
    }

    /** The handler's fields reach the client as it made them (Response checked them; Netty does not check them again). */
    @Test
    void sendsTheHandlersFieldsBesideTheServersOwn() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            RawClient.Reply reply = raw.send("GET /fields HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT);
            assertEquals("fields", reply.body());
            assertEquals(List.of("one", "two"), reply.headers().getAll("x-twice"));
            assertEquals("no-store", reply.header("cache-control"));
            assertEquals("text/plain; charset=utf-8", reply.header("content-type"));
            assertEquals("6", reply.header("content-length"));
            assertTrue(reply.header("date") != null && reply.header("connection") == null, reply.headers().toString());
        }
    }

    @Test
    void keepsConnectionsAliveAndRunsAllTheirRequestsOnOneWorker() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            String worker = null;
            for (int i = 0; i < 20; i++) {
                raw.send("GET /" + i + " HTTP/1.1\r\nHost: x\r\n\r\n");
                RawClient.Reply reply = raw.read(WAIT);
                assertEquals("GET /" + i + " 0 ", reply.body());
                assertTrue(worker == null || worker.equals(reply.header("x-worker")), "a connection's requests share a worker");
                worker = reply.header("x-worker");
            }
        }
    }

    @Test
    void answersPipelinedRequestsInOrder() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 40; i++) {
                batch.append(i % 3 == 0 ? "POST /" + i + " HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                        : "GET /" + i + " HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            raw.send(batch.toString());
            List<RawClient.Reply> replies = raw.read(40, WAIT);
            for (int i = 0; i < 40; i++) {
                assertEquals(i % 3 == 0 ? "POST /" + i + " 3 abc" : "GET /" + i + " 0 ", replies.get(i).body());
            }
        }
    }

    /**
     * The requests that several connections send at once reach the I/O thread in one pass and go to
     * the workers together at its end (see {@link Inbox}): each connection still gets all its answers,
     * in its own order, from its own worker.
     */
    @Test
    void answersPipelinedRequestsOfManyConnectionsReadInOnePass() throws Exception {
        int connections = 16;
        int requests = 10;
        for (int round = 0; round < 20; round++) {
            List<RawClient> raws = new java.util.ArrayList<>();
            try {
                for (int c = 0; c < connections; c++) {
                    raws.add(new RawClient(server.port()));
                }
                for (int c = 0; c < connections; c++) {
                    StringBuilder batch = new StringBuilder();
                    for (int i = 0; i < requests; i++) {
                        batch.append("GET /").append(c).append('/').append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
                    }
                    raws.get(c).send(batch.toString());
                }
                for (int c = 0; c < connections; c++) {
                    List<RawClient.Reply> replies = raws.get(c).read(requests, WAIT);
                    for (int i = 0; i < requests; i++) {
                        assertEquals("GET /" + c + "/" + i + " 0 ", replies.get(i).body(), "round " + round);
                        assertEquals(replies.getFirst().header("x-worker"), replies.get(i).header("x-worker"));
                    }
                }
            } finally {
                for (RawClient raw : raws) {
                    raw.close();
                }
            }
        }
    }

    @Test
    void readsAChunkedRequestBody() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            raw.send("POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
            assertEquals("POST /up 11 hello world", raw.read(WAIT).body());
        }
        // java.net.http sends a body of unknown length chunked
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/stream")).timeout(WAIT)
                .POST(BodyPublishers.fromPublisher(BodyPublishers.ofString("streamed body"))).build());
        assertEquals("POST /stream 13 streamed body", response.body());
    }

    @Test
    void sendsAChunkedResponse() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            RawClient.Reply reply = raw.send("GET /chunks HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT);
            assertEquals("chunked", reply.header(RawClient.SENT_TRANSFER_ENCODING));
            assertEquals("one,two,three", reply.body());
            // HTTP/1.0 cannot read chunks: the same response comes with a length
            RawClient.Reply old = raw.send("GET /chunks HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read(WAIT);
            assertEquals("13", old.header("content-length"));
            assertEquals("keep-alive", old.header("connection"));
            assertEquals("one,two,three", old.body());
        }
        assertEquals("one,two,three", send(HttpRequest.newBuilder(uri("/chunks")).timeout(WAIT).build()).body());
    }

    @Test
    void sendsContinueBeforeTheBodyIsSent() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            raw.send("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
            assertEquals(100, raw.read(WAIT).status());
            raw.send("data");
            assertEquals("PUT /x 4 data", raw.read(WAIT).body());
        }
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/expect")).timeout(WAIT).expectContinue(true)
                .POST(BodyPublishers.ofString("payload")).build());
        assertEquals("POST /expect 7 payload", response.body());
    }

    @Test
    void answersHeadWithTheHeadersOfGet() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/h")).timeout(WAIT)
                .method("HEAD", BodyPublishers.noBody()).build());
        assertEquals(200, response.statusCode());
        assertEquals("", response.body());
        assertEquals(String.valueOf("HEAD /h 0 ".length()), response.headers().firstValue("content-length").orElseThrow());
        // the connection is still in step: the next request on it gets its own answer
        assertEquals("GET /after 0 ", send(HttpRequest.newBuilder(uri("/after")).timeout(WAIT).build()).body());
    }

    @Test
    void closesAfterAnsweringConnectionClose() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            raw.send("GET /1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
            RawClient.Reply reply = raw.read(WAIT);
            assertEquals("GET /1 0 ", reply.body());
            assertEquals("close", reply.header("connection"));
            assertTrue(raw.closedByServer(WAIT), "the server closes after the response to Connection: close");
        }
        try (RawClient raw = new RawClient(server.port())) {
            raw.send("GET /old HTTP/1.0\r\n\r\n");
            assertEquals("GET /old 0 ", raw.read(WAIT).body());
            assertTrue(raw.closedByServer(WAIT), "an HTTP/1.0 request without keep-alive ends its connection");
        }
        assertFalse(server.isClosed());
    }


    static final Queue<String> handled = new ConcurrentLinkedQueue<>();
    static final Mo1<Request, Response> record = mo(request -> {
        handled.add(request.method() + " " + request.target());
        return Response.text(request.target());
    });

    @Test
    void runsNothingPipelinedAfterARequestThatEndsTheConnection() throws Exception {
        for (String ending : List.of("GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET /last HTTP/1.0\r\n\r\n")) {
            handled.clear();
            try (Server one = Server.start(record, ServerOptions.defaults().withWorkers(1))) {
                try (RawClient raw = new RawClient(one.port())) {
                    raw.send(ending + "POST /after HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx");
                    assertEquals("/last", raw.read(WAIT).body());
                    assertTrue(raw.closedByServer(WAIT));
                }
                try (RawClient probe = new RawClient(one.port())) { // after /after on the one worker, had it been queued
                    assertEquals("/probe", probe.send("GET /probe HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body());
                }
            }
            assertEquals(List.of("GET /last", "GET /probe"), List.copyOf(handled),
                    "RFC 9112 §9.6: a server must not process requests after one that closes the connection: " + ending);
        }
    }
}
