package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Worker JVMs retired after a number of tasks, or after an idle time: a fresh JVM takes over, no task is lost. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RetirementTest {

    @Test
    void aJvmIsRetiredAfterItsTasksAndNoTaskIsLostOrRunTwice(@TempDir Path directory) throws Exception {
        int limit = 10;
        int tasks = 20;
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withMaxTasksPerJvm(limit))) {
            Path runs = directory.resolve("runs");
            List<CompletableFuture<Long>> pids = new ArrayList<>();
            List<CompletableFuture<Integer>> recorded = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                pids.add(pool.submit(Jobs.pid.call()));
                recorded.add(pool.submit(Jobs.record.call(runs.toString(), i)));
            }
            Map<Long, Integer> perJvm = new LinkedHashMap<>();
            for (int i = 0; i < tasks; i++) {
                perJvm.merge(pids.get(i).get(60, TimeUnit.SECONDS), 1, Integer::sum);
                assertEquals(i, recorded.get(i).get(60, TimeUnit.SECONDS));
            }
            List<String> lines = Files.readAllLines(runs);
            assertEquals(tasks, lines.size(), "each task ran once");
            for (int i = 0; i < tasks; i++) {
                assertEquals(Integer.toString(i), lines.get(i), "in order");
            }
            // Two tasks per i: each JVM is sent between 90% and 100% of the limit (the last one maybe fewer).
            List<Integer> counts = List.copyOf(perJvm.values());
            assertTrue(counts.size() >= 2 * tasks / limit, "retired after about " + limit + " tasks: " + perJvm);
            for (int i = 0; i < counts.size(); i++) {
                int sent = 2 * counts.get(i); // the pid and the record tasks alternate
                assertTrue(sent <= limit + 1 && (i == counts.size() - 1 || sent >= limit * 9 / 10 - 1),
                        "tasks per JVM within the jittered limit: " + perJvm);
            }
        }
    }

    @Test
    void aRetiredJvmClosesItsTaskArgValues(@TempDir Path directory) throws Exception {
        Path marker = directory.resolve("closed");
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withMaxTasksPerJvm(3))) {
            Task<Jobs.Handle> handle = Jobs.open.call(marker.toString());
            String first = pool.run(Jobs.use.call(handle));
            long pid = Long.parseLong(first.substring(first.lastIndexOf('/') + 1));
            for (int i = 0; i < 5; i++) {
                pool.run(Jobs.square.call(i));
            }
            ProcessHandle.of(pid).ifPresent(old -> old.onExit().join());
            assertTrue(Files.readString(marker).startsWith("closed "), "the retired JVM closed its value");
            String again = pool.run(Jobs.use.call(handle));
            assertNotEquals(pid, Long.parseLong(again.substring(again.lastIndexOf('/') + 1)), "a new JVM resolves it again");
        }
    }

    @Test
    void aJvmIdleAfterTasksIsRetired() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withIdleTimeout(Duration.ofMillis(300)))) {
            long first = pool.run(Jobs.pid.call());
            ProcessHandle.of(first).ifPresent(old -> old.onExit().orTimeout(30, TimeUnit.SECONDS).join());
            long second = pool.run(Jobs.pid.call());
            assertNotEquals(first, second, "a fresh JVM took over");
            assertEquals(49, pool.run(Jobs.square.call(7)));
        }
    }
}
