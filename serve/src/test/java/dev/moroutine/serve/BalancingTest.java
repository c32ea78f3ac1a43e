package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which worker a connection goes to, and the per-worker counts a running server shows. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BalancingTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    /** Answers with the index of the worker it runs on. */
    static final Mo1<Request, Response> whoAmI = mo(request -> Response.text(Thread.currentThread().getName()
            .substring(Thread.currentThread().getName().lastIndexOf('-') + 1)));

    private static int open(Server server) {
        return server.threads().stream().mapToInt(ServerThread::connections).sum();
    }

    private static void awaitOpen(Server server, int expected) {
        Await.until(() -> open(server) == expected, WAIT, () -> "open connections " + server.threads());
    }

    @Test
    void spreadsSequentialShortConnectionsEvenlyInsteadOfFavouringWorkerZero() throws Exception {
        try (Server server = Server.start(whoAmI, ServerOptions.defaults().withWorkers(4))) {
            int[] ranOn = new int[4];
            for (int i = 0; i < 40; i++) {
                try (RawClient raw = new RawClient(server.port())) {
                    ranOn[Integer.parseInt(raw.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read(WAIT).body())]++;
                    assertTrue(raw.closedByServer(WAIT));
                }
                awaitOpen(server, 0); // every worker has 0 open connections when the next one comes: a tie
            }
            assertEquals(List.of(10, 10, 10, 10), List.of(ranOn[0], ranOn[1], ranOn[2], ranOn[3]));
            for (ServerThread thread : server.threads()) {
                assertEquals(10, thread.acceptedConnections(), thread.toString());
                assertEquals(10, thread.requestsServed(), thread.toString());
            }
        }
    }

    @Test
    void givesNewConnectionsToTheWorkerWithFewest() throws Exception {
        try (Server server = Server.start(whoAmI, ServerOptions.defaults().withWorkers(4))) {
            List<RawClient> clients = new ArrayList<>();
            List<Integer> workerOf = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    RawClient raw = new RawClient(server.port());
                    clients.add(raw);
                    workerOf.add(Integer.parseInt(raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body()));
                }
                for (ServerThread thread : server.threads()) {
                    assertEquals(2, thread.connections(), "8 connections over 4 workers: " + server.threads());
                }
                for (int i = 0; i < 8; i++) { // close worker 2's connections
                    if (workerOf.get(i) == 2) {
                        clients.get(i).close();
                    }
                }
                Await.until(() -> server.threads().get(2).connections() == 0, WAIT, () -> server.threads().toString());
                for (int i = 0; i < 2; i++) {
                    RawClient raw = new RawClient(server.port());
                    clients.add(raw);
                    assertEquals("2", raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body());
                }
                assertEquals(List.of(2, 2, 2, 2), server.threads().stream().map(ServerThread::connections).toList());
            } finally {
                for (RawClient client : clients) {
                    client.close();
                }
            }
        }
    }

    @Test
    void aCustomBalancerPicksFromTheServerThreads() throws Exception {
        List<List<ServerThread>> seen = new CopyOnWriteArrayList<>();
        ConnectionBalancer last = threads -> {
            seen.add(threads);
            return threads.getLast();
        };
        try (Server server = Server.start(whoAmI, ServerOptions.defaults().withWorkers(3).withBalancer(last))) {
            for (int i = 0; i < 5; i++) {
                try (RawClient raw = new RawClient(server.port())) {
                    assertEquals("2", raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).body());
                }
            }
            assertEquals(5, seen.size());
            for (List<ServerThread> threads : seen) {
                assertSame(server.threads(), threads);
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(i, server.threads().get(i).worker().index());
            }
            assertEquals(5, server.threads().get(2).acceptedConnections());
            assertEquals(5, server.threads().get(2).requestsServed());
        }
    }

    @Test
    void closesTheConnectionWhenTheBalancerFailsOrAnswersWrong() throws Exception {
        try (Server other = Server.start(whoAmI, ServerOptions.defaults().withWorkers(1));
                LogCapture log = new LogCapture()) {
            ServerThread foreign = other.threads().getFirst();
            ConnectionBalancer broken = threads -> {
                throw new IllegalStateException("broken balancer");
            };
            try (Server server = Server.start(whoAmI, ServerOptions.defaults().withWorkers(1).withBalancer(broken));
                    RawClient raw = new RawClient(server.port())) {
                assertTrue(raw.closedByServer(WAIT));
            }
            try (Server server = Server.start(whoAmI, ServerOptions.defaults().withWorkers(1).withBalancer(threads -> foreign));
                    RawClient raw = new RawClient(server.port())) {
                assertTrue(raw.closedByServer(WAIT));
            }
            assertEquals(2, log.records().size(), () -> log.records().toString());
            assertTrue(log.records().get(0).getMessage().startsWith("the connection balancer failed, so a connection from"));
            assertSame(IllegalStateException.class, log.records().get(0).getThrown().getClass());
            assertTrue(log.records().get(1).getMessage().contains("which is not one of the server's threads, so a connection"
                    + " from"), log.records().get(1).getMessage());
            assertTrue(log.records().get(1).getMessage().endsWith("; return one of the threads it is given"));
        }
    }
}
