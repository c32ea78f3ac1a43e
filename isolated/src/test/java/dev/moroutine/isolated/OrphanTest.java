package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.isolated.internal.Launcher;
import dev.moroutine.isolated.internal.Settings;
import java.io.BufferedReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker JVM whose parent dies, however, exits by itself within seconds. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OrphanTest {

    @Test
    void aWorkerJvmExitsWhenItsParentIsKilled() throws Exception {
        Settings same = new Settings(List.of(), Map.of(), List.of(), Duration.ofSeconds(30), 1, Duration.ofSeconds(1));
        Process parent = new Launcher(same, OrphanParent.class).start(List.of());
        try {
            BufferedReader output = parent.inputReader();
            CompletableFuture<Long> announced = CompletableFuture.supplyAsync(() -> output.lines()
                    .filter(line -> line.startsWith("worker pid "))
                    .map(line -> Long.parseLong(line.substring("worker pid ".length())))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the parent ended without starting its worker")));
            long workerPid = announced.get(90, TimeUnit.SECONDS);
            ProcessHandle worker = ProcessHandle.of(workerPid).orElseThrow();
            assertTrue(worker.parent().map(ProcessHandle::pid).orElseThrow() == parent.pid(), "the worker is the parent's child");
            parent.destroyForcibly();
            worker.onExit().get(10, TimeUnit.SECONDS);
        } finally {
            parent.destroyForcibly();
        }
    }
}
