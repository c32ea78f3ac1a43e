package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a user can get wrong is refused with a message that says what to do. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ApiTest {

    static final Mo1<Request, Response> ok = mo(request -> Response.of(204));

    private static String refusal(Runnable bad) {
        return assertThrows(IllegalArgumentException.class, bad::run).getMessage();
    }

    @Test
    void responsesRefuseWhatHttpCannotCarry() {
        assertEquals("status 100 is not a final response status; use 200 to 599 (the server sends 100 Continue itself)",
                refusal(() -> Response.of(100)));
        assertEquals("a 204 response has no body; use Response.of(204)",
                refusal(() -> Response.of(204, "text/plain", new byte[] {1})));
        assertEquals("Content-Length is set by the server (from the body and the connection's state); leave it out, and use"
                + " Response.chunked(…) for a chunked body", refusal(() -> Response.text("x").withHeader("Content-Length", "1")));
        assertEquals("header field name 'X Bad' holds ' ' at index 1; a name is letters, digits and !#$%&'*+-.^_`|~",
                refusal(() -> Response.text("x").withHeader("X Bad", "v")));
        assertEquals("the value of header field X-Split holds character 0xd at index 1; a value is one line of visible"
                + " Latin-1 characters, spaces and tabs", refusal(() -> Response.text("x").withHeader("X-Split", "a\r\nSet-Cookie: evil")));
    }

    @Test
    void responsesKeepTheirParts() {
        Response response = Response.json("{}").withHeader("Cache-Control", "no-store").withHeader("cache-control", "private");
        assertEquals(200, response.status());
        assertEquals(Map.of("content-type", List.of("application/json"), "cache-control", List.of("no-store", "private")),
                response.headers());
        assertArrayEquals("{}".getBytes(StandardCharsets.UTF_8), response.body());
        Response chunked = Response.chunked(200, "text/plain", List.of(new byte[] {'a'}, new byte[0], new byte[] {'b'}));
        assertTrue(chunked.isChunked());
        assertArrayEquals(new byte[] {'a', 'b'}, chunked.body());
        assertFalse(response.isChunked());
    }

    @Test
    void requestsMadeByHandAreValues() {
        Request request = Request.of("POST", "/items?id=7", Map.of("content-type", List.of("text/plain")), new byte[] {'h', 'i'});
        assertEquals("/items", request.path());
        assertEquals("id=7", request.query());
        assertEquals("text/plain", request.header("Content-Type").orElseThrow());
        assertEquals("hi", request.bodyText());
        assertEquals("header name 'Content-Type' is not in lower case; requests keep header names in lower case, as HTTP/2"
                + " sends them, so write 'content-type'",
                refusal(() -> Request.of("GET", "/", Map.of("Content-Type", List.of("x")), new byte[0])));
    }

    @Test
    void optionsRefuseOutOfRangeValues() {
        assertEquals("port 70000 is not in 0 to 65535; use 0 for any free port", refusal(() -> ServerOptions.defaults().withPort(70000)));
        assertEquals("workers must be at least 1, was 0", refusal(() -> ServerOptions.defaults().withWorkers(0)));
        assertEquals("body size limit -1 is negative; use 0 to accept no body", refusal(() -> ServerOptions.defaults().withMaxBodySize(-1)));
        assertEquals("header timeout must be positive, was PT0S", refusal(() -> ServerOptions.defaults().withHeaderTimeout(Duration.ZERO)));
        assertEquals("drain timeout PT-1S is negative; use Duration.ZERO to close at once",
                refusal(() -> ServerOptions.defaults().withDrainTimeout(Duration.ofSeconds(-1))));
    }

    @Test
    void saysWhichPortItCouldNotListenOn() {
        try (Server first = Server.start(ok, ServerOptions.defaults().withWorkers(1))) {
            UncheckedIOException taken = assertThrows(UncheckedIOException.class,
                    () -> Server.start(ok, ServerOptions.defaults().withWorkers(1).withPort(first.port())));
            assertTrue(taken.getMessage().startsWith("could not listen on 127.0.0.1:" + first.port() + " ("), taken.getMessage());
            assertTrue(taken.getMessage().endsWith("); choose another port, or 0 for any free one"), taken.getMessage());
        }
    }
}
