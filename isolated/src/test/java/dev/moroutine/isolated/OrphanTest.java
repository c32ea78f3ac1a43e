package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.isolated.internal.Launcher;
import dev.moroutine.isolated.internal.Settings;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker JVM whose parent dies, however, exits by itself within seconds, and deletes the parent's shared-memory files. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OrphanTest {

    @Test
    void aWorkerJvmExitsWhenItsParentIsKilled() throws Exception {
        Settings same = new Settings(List.of(), Map.of(), List.of(), Duration.ofSeconds(30), 1, Duration.ofSeconds(1));
        Process parent = new Launcher(same, OrphanParent.class).start(List.of());
        try {
            BufferedReader output = parent.inputReader();
            Path[] sharedFiles = new Path[1];
            CompletableFuture<Long> announced = CompletableFuture.supplyAsync(() -> output.lines()
                    .peek(line -> {
                        if (line.startsWith("shared files ")) {
                            sharedFiles[0] = Path.of(line.substring("shared files ".length()));
                        }
                    })
                    .filter(line -> line.startsWith("worker pid "))
                    .map(line -> Long.parseLong(line.substring("worker pid ".length())))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the parent ended without starting its worker")));
            long workerPid = announced.get(90, TimeUnit.SECONDS);
            assertTrue(Files.isDirectory(sharedFiles[0]), "the parent's shared-memory files: " + sharedFiles[0]);
            ProcessHandle worker = ProcessHandle.of(workerPid).orElseThrow();
            assertTrue(worker.parent().map(ProcessHandle::pid).orElseThrow() == parent.pid(), "the worker is the parent's child");
            parent.destroyForcibly();
            worker.onExit().get(10, TimeUnit.SECONDS);
            assertFalse(Files.exists(sharedFiles[0]), "the worker deleted its dead parent's shared-memory files");
        } finally {
            parent.destroyForcibly();
        }
    }
}
