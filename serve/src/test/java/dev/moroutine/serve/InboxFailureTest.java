package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A handler that throws an {@link Error} while making its task (an {@code assert}, a class that fails to
 * initialise) must cost at most its own connection, as it did when requests were submitted as they were read.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InboxFailureTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    /** A short drain: close() would otherwise wait the whole default timeout for a stuck exchange. */
    static final ServerOptions OPTIONS = ServerOptions.defaults().withWorkers(1).withIoThreads(1).withDrainTimeout(Duration.ofSeconds(1));

    static final Mo1<Request, Response> echo = mo(request -> Response.text("ok " + request.path()));

    /** Counted down when {@code /error} throws; a new one per test. */
    static volatile CountDownLatch thrown;

    /** {@code /error} throws an Error from the I/O thread, before any task exists. */
    static final Handler broken = request -> {
        if (request.path().equals("/error")) {
            thrown.countDown();
            throw new AssertionError("a bug in the handler");
        }
        return echo.call(request);
    };

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    /**
     * The request read in the same pass as the failing one stays in the I/O thread's Inbox, which is then
     * never scheduled again: every later request of every connection of that I/O thread goes unanswered.
     */
    @Test
    void anErrorFromAHandlerDoesNotStopTheOtherConnectionsOfItsIoThread() throws Exception {
        thrown = new CountDownLatch(1);
        try (Server server = Server.start(broken, OPTIONS);
                RawClient failing = new RawClient(server.port());
                RawClient other = new RawClient(server.port())) {
            assertEquals("ok /before", other.send(get("/before")).read(WAIT).body());
            failing.send(get("/error") + get("/after")); // one write: both read in one pass
            assertTrue(thrown.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertEquals("ok /next", other.send(get("/next")).read(WAIT).body(),
                    "another connection of the same I/O thread is still served");
        }
    }

    /**
     * The connection whose handler threw gets neither an answer nor a close: its exchange waits for a task
     * that was never made (the idle timeout does not apply while an answer is owed), where the Error used to
     * reach the connection's exceptionCaught, which closed it.
     */
    @Test
    void theClientOfAHandlerThatThrowsAnErrorIsAnsweredOrClosed() throws Exception {
        thrown = new CountDownLatch(1);
        try (Server server = Server.start(broken, OPTIONS);
                RawClient failing = new RawClient(server.port())) {
            failing.send(get("/error"));
            String outcome;
            try {
                outcome = "answered " + failing.read(WAIT).status();
            } catch (AssertionError silent) {
                outcome = silent.getMessage().endsWith("closed the connection") ? "closed" : silent.getMessage();
            }
            assertTrue(outcome.equals("answered 500") || outcome.equals("closed"), outcome);
        }
    }
}
