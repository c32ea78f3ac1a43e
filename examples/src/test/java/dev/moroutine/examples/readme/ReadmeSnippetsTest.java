package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.readme.Jobs.*;
import static dev.moroutine.examples.readme.Primes.isPrime;
import static dev.moroutine.examples.readme.Sql.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.AbortController;
import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the README's snippets. Each README code block is a verbatim region of this package or of
 * the examples ({@link ReadmeTest} checks that), so what the README shows compiles and works.
 */
@Timeout(60)
class ReadmeSnippetsTest {

    @Test
    void dedicatedWorker() {
        boolean prime = isPrime.call(999_999_937L).join();          // blocks: spins briefly, then parks
        CompletableFuture<Boolean> later = isPrime.call(97L).future(); // returns at once
        assertTrue(prime);
        assertTrue(later.join());
    }

    @Test
    void pool() {
        try (Pool pool = workers(4)) {
            boolean seven = pool.run(isPrime.call(7L));                    // blocks for the value
            CompletableFuture<Boolean> eight = pool.submit(isPrime.call(8L)); // a future
            List<Boolean> more = pool.runAll(List.of(isPrime.call(9L), isPrime.call(11L))); // in order
            assertTrue(seven);
            assertFalse(eight.join());
            assertEquals(List.of(false, true), more);
        }
    }

    /** Closing waits for both tasks; it can only return because the counting loop sees the signal. */
    @Test
    void gracefulShutdown() {
        var options = PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(5));
        try (Pool pool = workers(2, options)) {
            pool.submit(countUntilAborted.call(pool.signal(), Long.MAX_VALUE)); // stops when the signal fires
            pool.submit(isPrime.call(999_999_937L));                           // runs to completion
        } // close(): the signal fires, both tasks finish, then the workers stop
    }

    @Test
    void balancingAndAssignment() {
        List<String> names = new ArrayList<>();
        try (Pool pool = workers(4, PoolOptions.defaults().withBalancer(leastBusy()))) {
            for (WorkerHandle worker : pool.workers()) {
                names.add(pool.run(assign(worker, warmUp.call()))); // runs on exactly that worker
            }
        }
        assertEquals(4, names.stream().distinct().count());
    }

    @Test
    void taskArgs() {
        Task<Connection> db = openDb.call("jdbc:sqlite::memory:");
        try (Pool pool = workers(1)) {
            pool.run(exec.call(db, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)"));
            pool.run(exec.call(db, "INSERT INTO users (name) VALUES ('Alice')"));
            long users = pool.run(count.call(db, "users")); // 1: one connection, opened once, on the worker
            assertEquals(1, users);
        } // the worker stops and closes the connection on its own thread
    }

    @Test
    void cancellation() {
        var controller = new AbortController();
        CompletableFuture<Long> counting = countUntilAborted.call(controller.signal(), Long.MAX_VALUE).future();
        controller.abort("enough");
        long reached = counting.join(); // the loop saw the signal on its worker and stopped
        assertTrue(reached < Long.MAX_VALUE);
    }

    @Test
    void timeouts() {
        Task<Long> counting = countUntilAborted.call(new AbortController().signal(), Long.MAX_VALUE);
        try {
            counting.withTimeout(Duration.ofMillis(100)).join(); // the loop sees its signal fire after 100 ms
            fail("expected a timeout");
        } catch (TaskFailedException e) {
            Throwable cause = e.getCause(); // TimeoutException: "… did not finish within its timeout of PT0.1S …"
            assertInstanceOf(TimeoutException.class, cause);
            assertTrue(cause.getMessage().contains("did not finish within its timeout of PT0.1S"), cause.getMessage());
        }
    }

    @Test
    void errors() {
        try (Pool pool = workers(1)) {
            pool.run(countLines.call(Path.of("no-such-file.txt")));
            fail("expected a failure");
        } catch (TaskFailedException e) {
            Throwable cause = e.getCause(); // NoSuchFileException, with the worker's stack trace
            assertInstanceOf(NoSuchFileException.class, cause);
        }
    }
}
