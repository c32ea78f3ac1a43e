package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo0;
import dev.moroutine.Mo2;
import dev.moroutine.Task;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A handler whose task-arg is a JDBC connection opened once per worker and used by every request there, unlocked. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TaskArgTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    static final Set<Connection> OPENED = ConcurrentHashMap.newKeySet();

    /** One in-memory database per worker: a connection that must never be shared between threads unlocked. */
    static final Mo0<Connection> openDb = mo(() -> {
        Connection db = DriverManager.getConnection("jdbc:sqlite::memory:");
        try (Statement create = db.createStatement()) {
            create.execute("CREATE TABLE hits (n INTEGER)");
            create.execute("INSERT INTO hits VALUES (0)");
        }
        OPENED.add(db);
        return db;
    });

    /** Counts the request in the worker's database and answers with the count, the worker and the connection's identity. */
    static final Mo2<Connection, Request, Response> count = mo((db, request) -> {
        try (Statement update = db.createStatement()) {
            update.executeUpdate("UPDATE hits SET n = n + 1");
        }
        try (PreparedStatement select = db.prepareStatement("SELECT n FROM hits"); ResultSet row = select.executeQuery()) {
            row.next();
            return Response.text(row.getInt(1) + " " + Thread.currentThread().getName() + " " + System.identityHashCode(db));
        }
    });

    @Test
    void eachWorkerOpensOneConnectionAndAllItsRequestsUseIt() throws Exception {
        int clients = 8;
        int requests = 50;
        Task<Connection> perWorker = openDb.call(); // one Task object: a task-arg is cached per worker by its identity
        List<List<String>> answers = new ArrayList<>();
        try (Server server = Server.start(request -> count.call(perWorker, request), ServerOptions.defaults().withWorkers(3));
                ExecutorService users = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<List<String>>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                futures.add(users.submit(() -> {
                    List<String> bodies = new ArrayList<>();
                    try (RawClient raw = new RawClient(server.port())) {
                        for (int i = 0; i < requests; i++) {
                            bodies.add(raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body());
                        }
                    }
                    return bodies;
                }));
            }
            for (Future<List<String>> future : futures) {
                answers.add(future.get(WAIT.toSeconds() * 3, TimeUnit.SECONDS));
            }
            assertEquals(3, OPENED.size(), "one connection per worker");
        }
        Map<String, String> dbOfWorker = new HashMap<>();
        Map<String, Integer> highest = new HashMap<>();
        for (List<String> bodies : answers) {
            Set<String> workers = new HashSet<>();
            for (String body : bodies) {
                String[] parts = body.split(" ");
                workers.add(parts[1]);
                String db = dbOfWorker.putIfAbsent(parts[1], parts[2]);
                assertTrue(db == null || db.equals(parts[2]), "a worker keeps its connection");
                highest.merge(parts[1], Integer.parseInt(parts[0]), Math::max);
            }
            assertEquals(1, workers.size(), "all requests of a connection run on its worker");
        }
        // Unlocked increments on each worker's own connection lose nothing: the counts add up.
        assertEquals(clients * requests, highest.values().stream().mapToInt(Integer::intValue).sum());
        for (Connection db : OPENED) {
            assertTrue(db.isClosed(), "closing the server closes the pool, which closes each worker's task-arg values");
        }
    }
}
