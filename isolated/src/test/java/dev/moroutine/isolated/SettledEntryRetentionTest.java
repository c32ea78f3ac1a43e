package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Found by review of 2aa151d: a completed future held its parent-side {@code Entry} (through
 * {@code Execution.settlement}), and with it the task's encoded request, the JVM it was sent to, its
 * feeders and registrations. With {@code whenComplete} the stage was popped at completion, so the
 * entry became garbage once the pump settled it; a caller that kept futures (a cache of results,
 * a list joined later) kept every task's encoded arguments too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SettledEntryRetentionTest {

    private static final int TASKS = 200;
    private static final String ENTRY = "dev.moroutine.isolated.internal.IsolatedWorker$Entry";

    @Test
    void aCompletedFutureDoesNotKeepItsTasksEntryAndEncodedArguments() throws Exception {
        String big = "x".repeat(50_000); // about 50 KB encoded per request
        List<CompletableFuture<String>> kept = new ArrayList<>();
        try (Pool pool = Isolated.workers(1)) {
            for (int i = 0; i < TASKS; i++) {
                kept.add(pool.submit(Jobs.reverse.call(i + big)));
            }
            for (CompletableFuture<String> future : kept) {
                assertTrue(future.get(60, TimeUnit.SECONDS).startsWith("x"));
            }
        }
        long live = liveInstances(ENTRY);
        assertTrue(live < TASKS / 10, live + " entries of settled tasks are still reachable from " + TASKS
                + " completed futures (each holding its ~50 KB encoded request)");
    }

    /** Live instances of a class after a full GC, from the class histogram (jcmd GC.class_histogram). */
    private static long liveInstances(String className) throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {null}, new String[] {String[].class.getName()});
        for (String line : histogram.split("\n")) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length >= 4 && columns[3].equals(className)) {
                return Long.parseLong(columns[1]);
            }
        }
        return 0;
    }
}
