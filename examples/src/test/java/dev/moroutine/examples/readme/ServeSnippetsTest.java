package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.examples.serve.Counter.hit;
import static dev.moroutine.examples.serve.Counter.openCounter;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Task;
import dev.moroutine.serve.Request;
import dev.moroutine.serve.Response;
import dev.moroutine.serve.Server;
import dev.moroutine.serve.ServerOptions;
import dev.moroutine.serve.ServerThread;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's snippets about serving HTTP. */
@Timeout(60)
class ServeSnippetsTest {

    public static final Mo1<Request, Response> hello = mo(request -> Response.text("hello " + request.path()));

    @Test
    void serveAMoroutine() throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            try (Server server = Server.start(hello, ServerOptions.defaults().withWorkers(4).withDrainTimeout(Duration.ofSeconds(5)))) {
                URI uri = URI.create("http://127.0.0.1:" + server.port() + "/you"); // port 0 by default: any free port
                String body = client.send(HttpRequest.newBuilder(uri).build(), BodyHandlers.ofString()).body(); // "hello /you"
                assertEquals("hello /you", body);
                for (ServerThread thread : server.threads()) {
                    System.out.println(thread.worker().name() + ": " + thread.connections() + " open, " + thread.requestsServed() + " served");
                }
                assertEquals(1, server.threads().stream().mapToLong(ServerThread::requestsServed).sum());
            } // close(): stops accepting, lets the requests in flight finish (at most 5 s), then closes the pool
        }
    }

    @Test
    void serveWithATaskArg() throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            Task<Connection> counter = openCounter.call(); // one database per worker, opened there on first use
            try (Server server = Server.start(request -> hit.call(counter, request), ServerOptions.defaults().withWorkers(4))) {
                URI uri = URI.create("http://127.0.0.1:" + server.port() + "/hit");
                String body = client.send(HttpRequest.newBuilder(uri).build(), BodyHandlers.ofString()).body();
                assertTrue(body.endsWith(" 1"), body);
            }
        }
    }
}
