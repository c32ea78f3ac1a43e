package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each limit and each request-smuggling shape gets its status, and its connection closed. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LimitsTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    static final String OK = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    static final Mo1<Request, Response> size = mo(request -> Response.text(request.method() + " " + request.body().length));

    static Server server;

    @BeforeAll
    static void start() {
        server = Server.start(size, ServerOptions.defaults().withWorkers(1));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Stream<Arguments> refused() {
        StringBuilder manyFields = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 100; i++) {
            manyFields.append("X-").append(i).append(": v\r\n");
        }
        return Stream.of(
                Arguments.of("request line over 4 KiB", "GET /" + "a".repeat(4100) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
                Arguments.of("header section over 8 KiB", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(8200) + "\r\n\r\n", 431),
                Arguments.of("101 header fields", manyFields + "\r\n", 431),
                Arguments.of("Content-Length over 1 MiB", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n", 413),
                Arguments.of("Content-Length and Transfer-Encoding",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("Transfer-Encoding and Content-Length",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("duplicate Content-Length",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
                Arguments.of("conflicting Content-Length",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
                Arguments.of("Content-Length list", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 4\r\n\r\nabcd", 400),
                Arguments.of("signed Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc", 400),
                Arguments.of("obsolete line folding (space)", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n folded\r\n\r\n", 400),
                Arguments.of("obsolete line folding (tab)", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tfolded\r\n\r\n", 400),
                Arguments.of("chunk size not hex", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("negative chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunk size overflow",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunk without its CRLF",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX0\r\n\r\n", 400),
                Arguments.of("chunked not last", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunked twice",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("bare line feeds", "GET / HTTP/1.1\nHost: x\n\n", 400),
                Arguments.of("no Host", "GET / HTTP/1.1\r\n\r\n", 400),
                Arguments.of("two Hosts", "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
                Arguments.of("space before the colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
                Arguments.of("a coding besides chunked",
                        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 501),
                Arguments.of("unknown expectation", "POST / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\na", 417),
                Arguments.of("HTTP/1.2", "GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("refused")
    void refusesAndCloses(String what, String request, int status) throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            RawClient.Reply reply = raw.send(request).read(WAIT);
            assertEquals(status, reply.status(), what);
            assertEquals("close", reply.header("connection"), what);
            assertTrue(raw.closedByServer(WAIT), what);
        }
    }

    @Test
    void answersTheRequestsBeforeARefusedOneFirst() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            raw.send(OK + OK + "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n folded\r\n\r\n" + OK);
            List<RawClient.Reply> replies = raw.read(3, WAIT);
            assertEquals(List.of(200, 200, 400), replies.stream().map(RawClient.Reply::status).toList());
            assertTrue(raw.closedByServer(WAIT), "nothing after the refused request is read");
        }
    }

    @Test
    void acceptsWhatIsJustWithinTheLimits() throws Exception {
        StringBuilder hundredFields = new StringBuilder("POST /" + "a".repeat(4000) + " HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 98; i++) {
            hundredFields.append("X-").append(i).append(": v\r\n");
        }
        byte[] body = new byte[1 << 20];
        hundredFields.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        try (RawClient raw = new RawClient(server.port())) {
            raw.send(hundredFields.toString()).send(body);
            assertEquals("POST 1048576", raw.read(WAIT).body());
            assertEquals(200, raw.send(OK).read(WAIT).status(), "and the connection stays open");
        }
    }

    @Test
    void refusesAChunkedBodyThatGrowsOverTheLimit() throws Exception {
        try (Server small = Server.start(size, ServerOptions.defaults().withWorkers(1).withMaxBodySize(10));
                RawClient raw = new RawClient(small.port())) {
            raw.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n");
            RawClient.Reply reply = raw.read(WAIT);
            assertEquals(413, reply.status());
            assertTrue(raw.closedByServer(WAIT));
        }
        try (Server small = Server.start(size, ServerOptions.defaults().withWorkers(1).withMaxBodySize(10));
                RawClient raw = new RawClient(small.port())) {
            raw.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(4 << 20) + "\r\n");
            raw.send("x".repeat(100)); // of a 4 MiB chunk
            assertEquals(413, raw.read(WAIT).status(), "answered while the client still uploads");
            assertTrue(raw.closedByServer(WAIT));
        }
    }

    @Test
    void answersAnOversizedExpectContinueWithoutWaitingForTheBody() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            raw.send("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n");
            assertEquals(413, raw.read(WAIT).status());
            assertTrue(raw.closedByServer(WAIT));
        }
    }
}
