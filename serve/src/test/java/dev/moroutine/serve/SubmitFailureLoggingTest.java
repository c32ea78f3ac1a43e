package dev.moroutine.serve;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Mo0;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.stream.Streaming;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server logs a request that its pool refuses to run (here a handler's task that is a channel,
 * which runs on no worker) and answers 500. The log handler is user code: one that waits for a
 * task on an idle worker of its own pool (an appender that ships records through moroutines)
 * must not hang the I/O thread. Were the refusal logged inside the Inbox's deferred submissions,
 * the log handler's own dispatch would be deferred too, and nothing would wake the worker it waits for.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubmitFailureLoggingTest {

    static final Duration WAIT = Duration.ofSeconds(10);

    static final Mo0<Thread> whereAmI = mo(Thread::currentThread);

    @SuppressWarnings("unchecked") // on purpose: a task that the pool refuses at submission
    static final Task<Response> refused = (Task<Response>) (Task<?>) Streaming.channel(List.of("a channel"));

    @Test
    void aLogHandlerThatRunsATaskOnAnIdleWorkerDoesNotHangTheIoThread() throws Exception {
        Logger logger = Logger.getLogger(Server.class.getName());
        boolean parents = logger.getUseParentHandlers();
        try (Pool side = Moroutine.workers(1)) {
            Thread sideThread = side.run(whereAmI.call());
            Handler shipping = new Handler() {
                @Override
                public void publish(LogRecord record) {
                    side.run(whereAmI.call()); // ships the record through a moroutine and waits for it
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };
            logger.addHandler(shipping);
            logger.setUseParentHandlers(false);
            Server server = Server.start(request -> refused, ServerOptions.defaults().withWorkers(1).withIoThreads(1));
            try (RawClient raw = new RawClient(server.port())) {
                Await.until(() -> sideThread.getState() == Thread.State.WAITING, WAIT, () -> sideThread + " did not park");
                assertEquals(500, raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(WAIT).status());
            } finally {
                server.terminate();
                logger.removeHandler(shipping);
                logger.setUseParentHandlers(parents);
            }
        }
    }
}
