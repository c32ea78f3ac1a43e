package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link Handler} that waits, while it makes its task, for a task of its own on an idle worker
 * (a lookup on another pool, a moroutine joined directly). The handler runs on an I/O thread
 * while it submits the pass's requests, whose wake-ups wait for the end of the pass
 * ({@link Inbox}): were the handler's own dispatch deferred too, it would wait for a worker that
 * nothing wakes, and the I/O thread would hang with every connection on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BlockingHandlerTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    static final Mo0<Thread> whereAmI = mo(Thread::currentThread);
    static final Mo0<Thread> dedicatedWhereAmI = mo(Thread::currentThread);
    static final Mo1<String, Response> answer = mo(Response::text);

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    @Test
    void aHandlerThatRunsATaskOnAnIdlePoolWorkerIsAnswered() throws Exception {
        try (Pool side = Moroutine.workers(1)) {
            Thread sideThread = side.run(whereAmI.call());
            Server server = Server.start(request -> answer.call(side.run(whereAmI.call()).getName()),
                    ServerOptions.defaults().withWorkers(1));
            try (RawClient raw = new RawClient(server.port())) {
                Await.until(() -> sideThread.getState() == Thread.State.WAITING, WAIT, () -> sideThread + " did not park");
                RawClient.Reply reply = raw.send(get("/")).read(WAIT);
                assertEquals(200, reply.status());
                assertEquals(sideThread.getName(), reply.body());
            } finally {
                server.terminate();
            }
        }
    }

    @Test
    void aHandlerThatJoinsAMoroutineWhoseDedicatedThreadRetiredIsAnswered() throws Exception {
        Duration idle = Moroutine.dedicatedIdleTimeout();
        Moroutine.setDedicatedIdleTimeout(Duration.ZERO);
        try {
            Thread retired = dedicatedWhereAmI.call().join();
            retired.join(WAIT);
            assertFalse(retired.isAlive(), retired + " did not retire");
            Server server = Server.start(request -> answer.call(dedicatedWhereAmI.call().join().getName()),
                    ServerOptions.defaults().withWorkers(1));
            try (RawClient raw = new RawClient(server.port())) {
                RawClient.Reply reply = raw.send(get("/")).read(WAIT);
                assertEquals(200, reply.status());
            } finally {
                server.terminate();
            }
        } finally {
            Moroutine.setDedicatedIdleTimeout(idle);
        }
    }
}
