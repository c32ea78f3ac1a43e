package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static java.lang.System.Logger.Level.DEBUG;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's "Common traps" snippets (see {@link ReadmeTest}). */
@Timeout(60)
class TrapsSnippetsTest {

    static final Mo1<String, Integer> parse = mo(s -> Integer.parseInt(s));

    static final Mo1<String, String> greet = mo(name -> name == null ? "hello, stranger" : "hello, " + name);

    private static final System.Logger LOG = System.getLogger("timing");

    static <A, R> Mo1.Body<A, R> timed(String name, Mo1.Body<A, R> body) {
        return a -> {
            long start = System.nanoTime();
            try {
                return body.apply(a);
            } finally {
                LOG.log(DEBUG, "{0}({1}) took {2} µs", name, a, (System.nanoTime() - start) / 1_000);
            }
        };
    }

    static final Mo1<Long, Boolean> isProbablePrime =
            mo(timed("isProbablePrime", n -> BigInteger.valueOf(n).isProbablePrime(30)));

    static <R> R withRetries(Pool pool, Task<R> task, int attempts) {
        for (int attempt = 1; ; attempt++) {
            try {
                return pool.run(task); // a task runs again each time it is submitted
            } catch (TaskFailedException e) {
                if (attempt == attempts) throw e;
            }
        }
    }

    /** Fails its first two runs, then succeeds. */
    private static final AtomicInteger runs = new AtomicInteger();
    static final Mo0<String> flaky = mo(() -> {
        if (runs.incrementAndGet() <= 2) {
            throw new IOException("busy, run " + runs.get());
        }
        return "done on run " + runs.get();
    });

    @Test
    void aLambdaPicksTheArityThatAnOverloadedMethodReferenceCannot() {
        assertEquals(42, parse.call("42").join());
    }

    @Test
    void aCastNullIsAValue() {
        String hello = greet.call((String) null).join(); // "hello, stranger"
        assertEquals("hello, stranger", hello);
    }

    @Test
    void aHelperWrapsTheBodyAndMoStaysInTheClass() {
        assertTrue(isProbablePrime.call(999_999_937L).join());
        assertEquals("dev.moroutine.examples.readme.TrapsSnippetsTest#isProbablePrime", isProbablePrime.id());
    }

    @Test
    void aHelperRetriesATaskOnTheCallersSide() {
        runs.set(0);
        try (Pool pool = workers(1)) {
            TaskFailedException e = assertThrows(TaskFailedException.class, () -> withRetries(pool, flaky.call(), 2));
            assertEquals("busy, run 2", e.getCause().getMessage());
            assertEquals("done on run 3", withRetries(pool, flaky.call(), 2));
        }
    }
}
