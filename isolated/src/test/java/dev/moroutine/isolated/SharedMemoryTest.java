package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.internal.shared.SharedFiles;
import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.RwLock;
import dev.moroutine.shared.Shared;
import dev.moroutine.shared.Struct;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Shared values passed to worker JVMs are the same memory there: atomics, waits and locks work across processes. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SharedMemoryTest {

    private static final int UPDATES = 10_000;

    @Test
    void fourProcessesUpdateAStructUnderAMutexExactly() {
        try (Pool pool = Isolated.workers(4)) {
            Mutex mutex = Shared.shared(Shared.mutex);
            Struct<SharedJobs.Tally> tally = Shared.shared(new SharedJobs.Tally(0, 0));
            List<CompletableFuture<Long>> tasks = new ArrayList<>();
            for (var worker : pool.workers()) {
                tasks.add(pool.submit(assign(worker, SharedJobs.update.call(mutex, tally, UPDATES))));
            }
            Set<Long> pids = new HashSet<>();
            for (CompletableFuture<Long> task : tasks) {
                pids.add(task.join());
            }
            assertEquals(4, pids.size(), "four worker processes: " + pids);
            assertFalse(pids.contains(ProcessHandle.current().pid()));
            assertEquals(new SharedJobs.Tally(4L * UPDATES, 8L * UPDATES), tally.load());

            RwLock lock = Shared.shared(Shared.rwLock);
            Struct<SharedJobs.Tally> second = Shared.shared(new SharedJobs.Tally(0, 0));
            List<CompletableFuture<Integer>> rw = new ArrayList<>();
            for (var worker : pool.workers()) {
                rw.add(pool.submit(assign(worker, SharedJobs.updateRw.call(lock, second, UPDATES / 4))));
            }
            for (CompletableFuture<Integer> task : rw) {
                assertEquals(0, task.join(), "torn reads under the read lock");
            }
            assertEquals(new SharedJobs.Tally(UPDATES, 2L * UPDATES), second.load());
        }
    }

    /** Narrow fields (read plain after a load-load fence by the generated load) agree under a mutex across four processes. */
    @Test
    void fourProcessesUpdateANarrowStructUnderAMutexExactly() {
        try (Pool pool = Isolated.workers(4)) {
            Mutex mutex = Shared.shared(Shared.mutex);
            Struct<SharedJobs.Narrow> narrow = Shared.shared(SharedJobs.Narrow.of(0));
            List<CompletableFuture<Integer>> tasks = new ArrayList<>();
            for (var worker : pool.workers()) {
                tasks.add(pool.submit(assign(worker, SharedJobs.updateNarrow.call(mutex, narrow, UPDATES))));
            }
            for (CompletableFuture<Integer> task : tasks) {
                assertEquals(0, task.join(), "fields that disagreed under the mutex");
            }
            assertEquals(SharedJobs.Narrow.of(4 * UPDATES), narrow.load());
        }
    }

    /** A worker JVM polling a narrow struct with load() alone in its loop sees the parent's store. */
    @Test
    void aWorkerPollingANarrowStructSeesTheParentsStore() throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            for (int round = 0; round < 5; round++) {
                Int32Atomic started = Shared.shared(Shared.int32Atomic);
                Struct<SharedJobs.Narrow> flag = Shared.shared(SharedJobs.Narrow.of(0));
                CompletableFuture<Integer> poller = pool.submit(SharedJobs.pollNarrow.call(started, flag, 20_000_000_000L));
                while (started.load() == 0) {
                    started.await(0, java.time.Duration.ofSeconds(30));
                }
                flag.store(SharedJobs.Narrow.of(round + 1));
                assertEquals(round + 1, poller.get(120, TimeUnit.SECONDS), "the poller never saw the store");
            }
        }
    }

    /** The parent and a child take turns: each waits for the other's move, so each side is woken by the other. */
    @Test
    void aChildAndTheParentWakeEachOther() throws Exception {
        int rounds = 2_000;
        try (Pool pool = Isolated.workers(1)) {
            for (boolean virtual : new boolean[] {false, true}) {
                Int32Atomic turn = Shared.shared(Shared.int32Atomic);
                CompletableFuture<Integer> child = pool.submit(SharedJobs.alternate.call(turn, 1, rounds));
                CompletableFuture<Integer> parent = new CompletableFuture<>();
                (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
                    try {
                        parent.complete(SharedJobs.alternate(turn, 0, rounds));
                    } catch (Throwable t) {
                        parent.completeExceptionally(t);
                    }
                });
                int childWoken = child.join();
                int parentWoken = parent.get(120, TimeUnit.SECONDS);
                assertEquals(2 * rounds, turn.load());
                assertTrue(childWoken > 0, "the child slept and the parent woke it at least once");
                assertTrue(parentWoken > 0, "the parent slept and the child woke it at least once");
            }
        }
    }

    @Test
    void countersAddUpAcrossTwoProcesses() {
        try (Pool pool = Isolated.workers(2)) {
            Int32Atomic counter = Shared.shared(Shared.int32Atomic);
            List<CompletableFuture<Integer>> tasks = new ArrayList<>();
            for (var worker : pool.workers()) {
                tasks.add(pool.submit(assign(worker, SharedJobs.count.call(counter, 100_000))));
            }
            tasks.forEach(CompletableFuture::join);
            assertEquals(200_000, counter.load());
        }
    }

    @Test
    void closingThePoolRemovesTheFiles() throws Exception {
        Path directory;
        Path file;
        Int32Atomic counter;
        try (Pool pool = Isolated.workers(1)) {
            directory = SharedFiles.directory();
            assertNotNull(directory);
            counter = Shared.shared(Shared.int32Atomic);
            assertEquals(5, pool.run(SharedJobs.count.call(counter, 5)));
            file = SharedFiles.locate(counter.segment(), counter.offset()).file();
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            try (Stream<Path> files = Files.list(directory)) {
                assertTrue(files.allMatch(f -> f.getFileName().toString().startsWith("chunk-")));
            }
        }
        assertFalse(Files.exists(file), "closing the pool removes " + file);
        assertFalse(Files.exists(directory), "and " + directory);
        counter.add(1); // the memory lives on in this JVM
        assertEquals(6, counter.load());
    }

    @Test
    void aValueThatLivesInThisJvmOnlyIsRefusedWithTheReason() {
        try (Pool pool = Isolated.workers(1)) {
            Int32Atomic local = Shared.shared(Arena.ofAuto(), Shared.int32Atomic);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> pool.run(SharedJobs.count.call(local, 1)));
            assertTrue(refused.getMessage().startsWith("argument 1 of task dev.moroutine.isolated.SharedJobs#count is an Int32Atomic"),
                    refused.getMessage());
            assertTrue(refused.getMessage().contains("allocate it with shared(…) while an isolated pool is open"), refused.getMessage());
            Throwable back = assertThrows(java.util.concurrent.CompletionException.class,
                    () -> pool.submit(SharedJobs.makeOne.call()).join()).getCause();
            assertTrue(back.getMessage().startsWith("the result of task dev.moroutine.isolated.SharedJobs#makeOne is an Int32Atomic,"
                    + " which cannot cross back"), back.getMessage());
        }
    }
}
