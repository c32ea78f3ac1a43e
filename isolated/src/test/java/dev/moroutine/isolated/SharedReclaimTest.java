package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.internal.shared.SharedFiles;
import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Shared;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Short-lived shared values passed to a worker JVM: each counted exactly, and their files given back. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SharedReclaimTest {

    private static long bytes(Path directory) throws Exception {
        try (Stream<Path> files = Files.list(directory)) {
            return files.mapToLong(f -> f.toFile().length()).sum();
        }
    }

    @Test
    void valuesPassedToAWorkerAndDroppedGiveTheirFilesBack() throws Exception {
        int values = 60_000; // 60,000 × 64 bytes: about 4 chunk files, each value crossing once
        int inFlight = 64;
        try (Pool pool = Isolated.workers(1)) {
            Path directory = SharedFiles.directory();
            Deque<CompletableFuture<Boolean>> pending = new ArrayDeque<>();
            long right = 0;
            for (int i = 0; i < values; i++) {
                Int32Atomic value = Shared.shared(Shared.int32Atomic);
                value.store(i);
                int expected = i + 1;
                // The task holds the value until it settles: its file must be there when the worker maps it.
                pending.add(pool.submit(SharedJobs.count.call(value, 1)).thenApply(after -> after == expected));
                if (pending.size() == inFlight) {
                    right += pending.poll().join() ? 1 : 0;
                }
            }
            while (!pending.isEmpty()) {
                right += pending.poll().join() ? 1 : 0;
            }
            assertEquals(values, right, "every value counted exactly once, in the worker JVM");
            long left = Long.MAX_VALUE;
            for (int round = 0; round < 100 && left > 2L << 20; round++) { // the cleanups run after a collection
                System.gc();
                left = bytes(directory);
            }
            assertTrue(left <= 2L << 20, "the chunk files hold " + (left >> 10) + " KiB after " + values + " values were dropped");
        }
    }
}
