package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Mo1;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Many keep-alive connections at once, each sending request after request: every response is the right one. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KeepAliveLoadTest {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final int CONNECTIONS = 50;
    static final int REQUESTS = 200;

    /** Answers with what identifies the request: the path and a digest of the body. */
    static final Mo1<Request, Response> identify = mo(request -> Response.text(request.path() + ":" + request.bodyText().length()));

    @Test
    void answersTenThousandRequestsOverFiftyConnectionsCorrectly() throws Exception {
        try (Server server = Server.start(identify, ServerOptions.defaults().withWorkers(4));
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> results = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++) {
                int connection = c;
                results.add(clients.submit(() -> {
                    int correct = 0;
                    try (RawClient raw = new RawClient(server.port())) {
                        for (int i = 0; i < REQUESTS; i++) {
                            String body = "x".repeat((connection * 7 + i) % 50);
                            String path = "/" + connection + "/" + i;
                            raw.send((i % 2 == 0 ? "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"
                                    : "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n" + body));
                            assertEquals(path + ":" + (i % 2 == 0 ? 0 : body.length()), raw.read(WAIT).body());
                            correct++;
                        }
                    }
                    return correct;
                }));
            }
            int correct = 0;
            for (Future<Integer> result : results) {
                correct += result.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
            }
            assertEquals(CONNECTIONS * REQUESTS, correct);
            assertEquals(CONNECTIONS, server.threads().stream().mapToLong(ServerThread::acceptedConnections).sum());
            assertEquals(CONNECTIONS * REQUESTS, server.threads().stream().mapToLong(ServerThread::requestsServed).sum());
        }
    }
}
