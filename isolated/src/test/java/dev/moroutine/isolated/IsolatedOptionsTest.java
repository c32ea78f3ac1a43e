package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad settings are refused with a message that says what was wrong; good ones are kept in order. */
class IsolatedOptionsTest {

    private static String message(Runnable bad) {
        return assertThrows(IllegalArgumentException.class, bad::run).getMessage();
    }

    @Test
    void refusesBadSettings() {
        IsolatedOptions options = IsolatedOptions.defaults();
        assertEquals("a pool needs at least 1 worker, was asked for 0", message(() -> Isolated.workers(0)));
        assertEquals("a heap size is a positive number with an optional unit k, m or g (as -Xmx takes it), like \"512m\";"
                + " was \"lots\"", message(() -> options.withMaxHeap("lots")));
        assertEquals("a system property's name must be non-blank and without '=', was \"a=b\"",
                message(() -> options.withSystemProperty("a=b", "c")));
        assertEquals("an environment variable's name must be non-blank and without '=', was \" \"",
                message(() -> options.withEnvironment(" ", "c")));
        assertEquals("int is a primitive type, which crosses without registering", message(() -> options.register(int.class)));
        assertEquals("java.lang.Thread is registered already", message(() -> options.register(Thread.class, Thread.class)));
        assertEquals("a start timeout must be positive, was PT0S", message(() -> options.withStartTimeout(Duration.ZERO)));
        assertEquals("a crash limit is at least 1 death within a positive time, was 0 within PT1S",
                message(() -> options.withCrashLimit(0, Duration.ofSeconds(1))));
        assertEquals("a worker JVM runs at least 1 task before it is retired, was 0", message(() -> options.withMaxTasksPerJvm(0)));
        assertEquals("an idle timeout must be positive, was PT-1S", message(() -> options.withIdleTimeout(Duration.ofSeconds(-1))));
        assertEquals("an idle timeout must be positive, was PT0S", message(() -> options.withIdleTimeout(Duration.ZERO)));
        assertThrows(NullPointerException.class, () -> options.withIdleTimeout(null));
    }

    @Test
    void keepsWhatItIsGiven() {
        IsolatedOptions options = IsolatedOptions.defaults()
                .withMaxHeap("64m")
                .withSystemProperty("b", "2")
                .withSystemProperty("a", "1")
                .withEnvironment("MODE", "test")
                .withJvmOptions("-XX:+UseSerialGC")
                .register(Jobs.Point.class)
                .register(Jobs.Unregistered.class)
                .withStartTimeout(Duration.ofSeconds(5))
                .withCrashLimit(3, Duration.ofMinutes(1))
                .withMaxTasksPerJvm(1000)
                .withIdleTimeout(Duration.ofMinutes(5));
        assertEquals("64m", options.maxHeap().orElseThrow());
        assertEquals(List.of("b", "a"), List.copyOf(options.systemProperties().keySet()));
        assertEquals(Map.of("MODE", "test"), options.environment());
        assertEquals(List.of("-XX:+UseSerialGC"), options.jvmOptions());
        assertEquals(List.of(Jobs.Point.class, Jobs.Unregistered.class), options.registered());
        assertEquals(Duration.ofSeconds(5), options.startTimeout());
        assertEquals(3, options.crashLimit());
        assertEquals(Duration.ofMinutes(1), options.crashWindow());
        assertEquals(1000, options.maxTasksPerJvm().orElseThrow());
        assertEquals(Duration.ofMinutes(5), options.idleTimeout().orElseThrow());
        assertTrue(IsolatedOptions.defaults().maxTasksPerJvm().isEmpty());
        assertTrue(IsolatedOptions.defaults().idleTimeout().isEmpty());
    }
}
