package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo0;
import dev.moroutine.Pool;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker JVM killed by an {@code OutOfMemoryError} (worker JVMs run with
 * {@code -XX:+ExitOnOutOfMemoryError}) or by a native crash settles each of its tasks exactly once,
 * as for the other deaths in {@link FaultTest}: the running one fails with the exit status and the
 * JVM's last output, those queued behind it run once on the replacement, and the pool goes on.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NativeAndMemoryDeathsTest {

    private static final int QUEUED = 10;

    @TempDir
    static Path crashReports;
    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(1, IsolatedOptions.defaults()
                .withMaxHeap("64m")
                // The JVM's crash report goes to a temporary directory, and no core file is written.
                .withJvmOptions("-XX:ErrorFile=" + crashReports.resolve("hs_err_%p.log"), "-XX:-CreateCoredumpOnCrash")
                .withCrashLimit(1_000, Duration.ofSeconds(1)));
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void anOutOfMemoryErrorEndsTheJvmAndFailsItsTaskAlone(@TempDir Path directory) throws Exception {
        String message = dies(DeathJobs.exhaustHeap, directory);
        assertTrue(message.contains(") died with exit status 3 while running task dev.moroutine.isolated.DeathJobs#exhaustHeap"),
                message);
        assertTrue(message.contains("allocating without end"), message);
        assertTrue(message.contains("Terminating due to java.lang.OutOfMemoryError: Java heap space"), message);
    }

    @Test
    void aNativeCrashEndsTheJvmAndFailsItsTaskAlone(@TempDir Path directory) throws Exception {
        String message = dies(DeathJobs.writeToAddressZero, directory);
        // The JVM's crash handler reports, then exits with status 1 (it would abort, 134, if it wrote a core file).
        assertTrue(message.contains(") died with exit status 1 while running task dev.moroutine.isolated.DeathJobs#writeToAddressZero"),
                message);
        assertTrue(message.contains("A fatal error has been detected by the Java Runtime Environment"), message);
        assertTrue(message.contains("SIGSEGV"), message);
        try (var reports = Files.list(crashReports)) {
            assertTrue(reports.anyMatch(f -> f.getFileName().toString().startsWith("hs_err_")), "the JVM's crash report");
        }
    }

    /** Runs a deadly task with tasks queued behind it; checks each settles once; returns the death's message. */
    private static String dies(Mo0<Integer> death, Path directory) throws Exception {
        WorkerHandle worker = pool.workers().get(0);
        long before = pool.run(assign(worker, Jobs.pid.call()));
        CompletableFuture<Integer> dying = pool.submit(assign(worker, death.call()));
        Path runs = directory.resolve("runs");
        List<CompletableFuture<Integer>> queued = new ArrayList<>();
        for (int i = 0; i < QUEUED; i++) {
            queued.add(pool.submit(assign(worker, Jobs.record.call(runs.toString(), i))));
        }
        ExecutionException failed = assertThrows(ExecutionException.class, () -> dying.get(120, TimeUnit.SECONDS));
        assertFalse(dying.isCancelled());
        WorkerDiedException died = assertInstanceOf(WorkerDiedException.class, failed.getCause());
        assertTrue(died.getMessage().startsWith(worker.name() + "'s JVM (pid " + before + ")"), died.getMessage());
        assertTrue(died.getMessage().contains("; a new JVM replaces it. Its last output:\n"), died.getMessage());
        for (int i = 0; i < QUEUED; i++) {
            assertEquals(i, queued.get(i).get(60, TimeUnit.SECONDS));
        }
        assertEquals(IntStream.range(0, QUEUED).mapToObj(Integer::toString).toList(), Files.readAllLines(runs),
                "each queued task ran exactly once, in order");
        assertNotEquals(before, pool.run(assign(worker, Jobs.pid.call())), "a new JVM");
        assertEquals(0, worker.activeCount());
        return died.getMessage();
    }
}
