package dev.moroutine.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.WorkerHandle;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs after every core test (registered by {@code NoLeakedWorkersEverywhere}, in the unnamed
 * package). Within a grace period:
 * <ul>
 *   <li>every pool worker thread has ended (pools are closed by then): a pool that forgets to stop
 *       its threads, or a worker that survives its pool, fails the test that made it;</li>
 *   <li>no worker thread, pool or dedicated, is a stream producer waiting for room: a test that
 *       leaves a live stream unconsumed and unclosed would hold that worker for the next test;</li>
 *   <li>every worker that still has a thread has {@link WorkerHandle#activeCount()} 0, and its
 *       thread is parked idle: a test that leaves a task queued or running (one that ignores its
 *       cancellation, say) would hold that worker for the next test.</li>
 * </ul>
 * Dedicated workers ({@code moroutine-<id>}) may outlive a test (they stop only after their idle
 * timeout); only what they are doing is checked.
 *
 * <p>No registry lists the workers, so they are found from their threads: a worker thread has a
 * {@code ThreadWorker.loop} frame, and an idle one parks with its worker as the park blocker
 * ({@link LockSupport#getBlocker}), which gives the worker's {@code activeCount()} through the
 * public {@link WorkerHandle}. Nothing else parks on a worker, so a blocker that is a worker is the
 * thread's own. A worker thread that is not parked there is busy (or between two states), and the
 * check looks again until the grace period ends.
 */
public class NoLeakedWorkers implements AfterEachCallback {

    /** Made through {@code NoLeakedWorkersEverywhere}, which extends this class only to be loaded outside the module. */
    public NoLeakedWorkers() {}

    private static final long GRACE_MILLIS = 10_000;
    private static final int FRAMES_SHOWN = 8;

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
        Map<Thread, String> waiting = untilEmptyOr(deadline, NoLeakedWorkers::waitingProducers);
        if (!waiting.isEmpty()) {
            fail(context.getDisplayName() + " left stream producers waiting for a consumer (close or consume every"
                    + " live stream): " + describe(waiting));
        }
        Map<Thread, String> busy = untilEmptyOr(deadline, NoLeakedWorkers::busyWorkers);
        if (!busy.isEmpty()) {
            fail(context.getDisplayName() + " left work on workers (every worker's activeCount() must be 0 after a"
                    + " test: wait for, or release, every task it started): " + describe(busy));
        }
    }

    /** Looks again while {@code find} finds something, until the deadline; what it found last. */
    private static Map<Thread, String> untilEmptyOr(long deadline, Supplier<Map<Thread, String>> find) {
        Map<Thread, String> found = find.get();
        while (!found.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
            found = find.get();
        }
        return found;
    }

    private static String describe(Map<Thread, String> found) {
        return found.entrySet().stream().map(e -> e.getKey().getName() + " " + e.getValue()).collect(Collectors.joining("; "));
    }

    private static List<Thread> poolThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("moroutine-pool-") || t.getName().startsWith("test-pool"))
                .filter(Thread::isAlive)
                .toList();
    }

    /** Worker threads (platform threads, so visible here) blocked in a pipe waiting for room, with their stacks. */
    private static Map<Thread, String> waitingProducers() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith("moroutine-"))
                .filter(e -> Arrays.stream(e.getValue()).anyMatch(NoLeakedWorkers::isProducerWait))
                .collect(Collectors.toMap(Map.Entry::getKey, e -> "at " + Arrays.toString(e.getValue())));
    }

    private static boolean isProducerWait(StackTraceElement frame) {
        return isInternal(frame, "Pipe") && frame.getMethodName().equals("awaitRoom");
    }

    /** Live worker threads not parked idle with nothing in flight, each with what it is doing. */
    private static Map<Thread, String> busyWorkers() {
        Map<Thread, String> busy = new LinkedHashMap<>();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (!thread.isAlive() || Arrays.stream(stack).noneMatch(NoLeakedWorkers::isWorkerLoop)) {
                return;
            }
            if (!(LockSupport.getBlocker(thread) instanceof WorkerHandle worker)) {
                busy.put(thread, "is not idle, at " + Arrays.toString(Arrays.copyOf(stack, Math.min(stack.length, FRAMES_SHOWN))));
            } else if (worker.activeCount() != 0) {
                busy.put(thread, "is parked, but " + worker + " has activeCount() " + worker.activeCount());
            }
        });
        return busy;
    }

    private static boolean isWorkerLoop(StackTraceElement frame) {
        return isInternal(frame, "ThreadWorker") && frame.getMethodName().equals("loop");
    }

    /** A frame of the library's internal class {@code simpleName}, in whichever internal package it lives. */
    private static boolean isInternal(StackTraceElement frame, String simpleName) {
        String className = frame.getClassName();
        return className.startsWith("dev.moroutine.internal.") && className.endsWith("." + simpleName);
    }
}
