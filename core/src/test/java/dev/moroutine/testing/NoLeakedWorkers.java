package dev.moroutine.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After each test, every pool worker thread must end (pools are closed by then): a pool that
 * forgets to stop its threads, or a worker that survives its pool, fails the test that made it.
 * Dedicated workers ({@code moroutine-<id>}) are not checked: they stop only after their idle timeout.
 */
public final class NoLeakedWorkers implements AfterEachCallback {

    /** Made by JUnit for {@code @ExtendWith}. */
    public NoLeakedWorkers() {}

    private static final long GRACE_MILLIS = 10_000;

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        long deadline = System.currentTimeMillis() + GRACE_MILLIS;
        for (Thread thread : poolThreads()) {
            thread.join(Math.max(1, deadline - System.currentTimeMillis()));
        }
        List<Thread> alive = poolThreads();
        if (!alive.isEmpty()) {
            fail(context.getDisplayName() + " left pool worker threads running: " + alive);
        }
    }

    private static List<Thread> poolThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("moroutine-pool-") || t.getName().startsWith("test-pool"))
                .filter(Thread::isAlive)
                .toList();
    }
}
