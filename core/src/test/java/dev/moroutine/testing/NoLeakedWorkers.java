package dev.moroutine.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For {@code @ExtendWith} on every test class that runs workers or streams. After each test, within
 * a grace period:
 * <ul>
 *   <li>every pool worker thread has ended (pools are closed by then): a pool that forgets to stop
 *       its threads, or a worker that survives its pool, fails the test that made it;</li>
 *   <li>no worker thread, pool or dedicated, is a stream producer waiting for room: a test that
 *       leaves a live stream unconsumed and unclosed would hold that worker for the next test.</li>
 * </ul>
 * Dedicated workers ({@code moroutine-<id>}) may outlive a test (they stop only after their idle
 * timeout); only what they are doing is checked.
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
        Map<Thread, StackTraceElement[]> waiting = waitingProducers();
        while (!waiting.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
            waiting = waitingProducers();
        }
        if (!waiting.isEmpty()) {
            fail(context.getDisplayName() + " left stream producers waiting for a consumer (close or consume every"
                    + " live stream): " + waiting.entrySet().stream()
                            .map(e -> e.getKey().getName() + " at " + Arrays.toString(e.getValue()))
                            .collect(Collectors.joining("; ")));
        }
    }

    private static List<Thread> poolThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("moroutine-pool-") || t.getName().startsWith("test-pool"))
                .filter(Thread::isAlive)
                .toList();
    }

    /** Worker threads (platform threads, so visible here) blocked in a pipe waiting for room. */
    private static Map<Thread, StackTraceElement[]> waitingProducers() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith("moroutine-"))
                .filter(e -> Arrays.stream(e.getValue()).anyMatch(NoLeakedWorkers::isProducerWait))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static boolean isProducerWait(StackTraceElement frame) {
        return frame.getClassName().startsWith("dev.moroutine.internal.")
                && frame.getClassName().endsWith("Pipe") && frame.getMethodName().equals("awaitRoom");
    }
}
