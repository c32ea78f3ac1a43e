package dev.moroutine.examples.serve;

import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.serve.Counter.hit;
import static dev.moroutine.examples.serve.Counter.openCounter;

import dev.moroutine.Task;
import dev.moroutine.serve.Server;
import dev.moroutine.serve.ServerOptions;
import dev.moroutine.serve.ServerThread;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP server on four workers: each connection goes to the worker with the fewest, and each of
 * its requests counts itself in that worker's own SQLite database (a task-arg, opened on the worker
 * and used there with no lock). Four clients on virtual threads send 25 requests each; the per-worker
 * counts the server shows must add up, and match what each worker's database counted.
 */
public final class ServeExample {

    private static final int CLIENTS = 4;
    private static final int REQUESTS = 25;

    private ServeExample() {}

    /**
     * Serves, sends the requests, prints the per-worker counts, and closes with a drain.
     *
     * @param args ignored
     * @throws Exception if a client fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, Integer> counted = new ConcurrentHashMap<>();
        Task<Connection> counter = openCounter.call();
        try (Server server = Server.start(request -> hit.call(counter, request), ServerOptions.defaults().withWorkers(4))) {
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/hit");
            System.out.println("listening on port " + server.port());
            try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int c = 0; c < CLIENTS; c++) {
                    clients.submit(() -> {
                        try (HttpClient client = HttpClient.newHttpClient()) {
                            for (int i = 0; i < REQUESTS; i++) {
                                String[] body = client.send(HttpRequest.newBuilder(uri).build(), BodyHandlers.ofString()).body().split(" ");
                                counted.merge(body[0], Integer.parseInt(body[1]), Math::max);
                            }
                        }
                        return null;
                    });
                }
            }
            List<ServerThread> threads = server.threads();
            long served = 0;
            boolean databasesAgree = true;
            for (ServerThread thread : threads) {
                System.out.printf("%s: %d connections, %d requests%n", thread.worker().name(), thread.acceptedConnections(),
                        thread.requestsServed());
                served += thread.requestsServed();
                databasesAgree &= counted.getOrDefault(thread.worker().name(), 0) == thread.requestsServed();
            }
            System.out.println("counted by the workers' databases: " + new TreeMap<>(counted));
            check(served == CLIENTS * REQUESTS && databasesAgree, served + " requests served of " + CLIENTS * REQUESTS
                    + ", each worker's database counted its own");
        } // close(): stops accepting, lets requests in flight finish, closes the pool and the databases
    }
}
