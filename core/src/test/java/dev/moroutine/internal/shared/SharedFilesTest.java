package dev.moroutine.internal.shared;

import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Shared;
import dev.moroutine.shared.WaitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The file-backed shared memory in one process, with {@link SharedFiles} enabled as an open
 * isolated pool enables it: proxies, wake counts, reclamation, a full /dev/shm, native access.
 */
@Timeout(60)
class SharedFilesTest {

    private Path directory;

    @BeforeEach
    void enable() throws Exception {
        directory = SharedFiles.enable();
    }

    @AfterEach
    void disable() {
        SharedFiles.disable();
    }

    private static Set<Thread> proxies() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("moroutine-futex-proxy") && t.isAlive())
                .collect(Collectors.toCollection(HashSet::new));
    }

    private static int sleepers(Int32Atomic value) {
        AbstractCell cell = (AbstractCell) value;
        SharedFiles.Chunk chunk = SharedFiles.chunkOf(cell.segment(), cell.offset());
        return Memory.getIntVolatile(chunk.memory, chunk.bucket(cell.segment().address() + cell.offset()) + 4);
    }

    /** A thread that waits on {@code value} while it holds 0, for at most {@code timeout}. */
    private static CompletableFuture<WaitResult> waitOn(Int32Atomic value, Duration timeout, Thread[] thread) {
        CompletableFuture<WaitResult> result = new CompletableFuture<>();
        thread[0] = Thread.ofPlatform().start(() -> {
            try {
                result.complete(value.await(0, timeout));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    private static void untilParked(Thread thread) {
        while (thread.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
    }

    /**
     * ProcessWaits' overview: "With no waiters here it lingers for a second ..., then exits". A
     * proxy whose last waiter leaves without a wake (timeout, interrupt, cancelled waitAsync, or a
     * local wake that the waiter answers before the waker reads sleepers) stays in an untimed
     * FUTEX_WAIT on seq: nothing moves seq any more (sleepers is 0), so the platform thread stays
     * until the pool closes; one per bucket, 64 per chunk.
     */
    @Test
    void aProxyWhoseLastWaiterTimedOutEnds() throws Exception {
        Int32Atomic value = Shared.shared(Shared.int32Atomic);
        Set<Thread> before = proxies();
        assertEquals(WaitResult.TIMED_OUT, value.await(0, Duration.ofMillis(300)));
        Set<Thread> started = proxies();
        started.removeAll(before);
        assertEquals(1, started.size(), "one proxy for the bucket");
        assertEquals(0, sleepers(value));
        for (Thread proxy : started) {
            proxy.join(5_000); // lingers 1 s, by the overview
            assertFalse(proxy.isAlive(), "the proxy is still there 5 s after its last waiter left: "
                    + Arrays.toString(proxy.getStackTrace()));
        }
    }

    /**
     * Int32Atomic#wake(int): "Wakes at most count waiters of this word ... returns how many were
     * woken". With a pool open, two waiters of this process, no other process: wake(1) bumps seq,
     * which wakes this process's own proxy, which wakes every waiter of the bucket here.
     */
    @Test
    void wakeOneWakesOneWaiterOfThisProcess() throws Exception {
        Int32Atomic value = Shared.shared(Shared.int32Atomic);
        Thread[] a = new Thread[1];
        Thread[] b = new Thread[1];
        CompletableFuture<WaitResult> first = waitOn(value, Duration.ofSeconds(3), a);
        CompletableFuture<WaitResult> second = waitOn(value, Duration.ofSeconds(3), b);
        while (sleepers(value) < 2) {
            Thread.onSpinWait();
        }
        untilParked(a[0]);
        untilParked(b[0]);
        int woken = value.wake(1);
        List<WaitResult> results = List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS));
        assertEquals(1, results.stream().filter(r -> r == WaitResult.OK).count(), "woken by wake(1): " + results);
        assertEquals(1, woken, "wake(1) reports");
    }

    /**
     * A wake of one word returns OK to a waiter of another word of this process whose offset hashes
     * to the same bucket of the chunk (1 in 64 pairs of values): the proxy wakes every stale waiter
     * of the bucket. A waiter of a quiet word is so woken by every wake of a busy neighbour.
     */
    @Test
    void aWakeOfOneWordDoesNotWakeAnotherWordOfThisProcess() throws Exception {
        Int32Atomic a = Shared.shared(Shared.int32Atomic);
        AbstractCell ca = (AbstractCell) a;
        SharedFiles.Chunk chunk = SharedFiles.chunkOf(ca.segment(), ca.offset());
        long bucket = chunk.bucket(ca.segment().address() + ca.offset());
        Int32Atomic b = null;
        for (int i = 0; i < 10_000 && b == null; i++) {
            Int32Atomic candidate = Shared.shared(Shared.int32Atomic);
            AbstractCell cc = (AbstractCell) candidate;
            if (SharedFiles.chunkOf(cc.segment(), cc.offset()) == chunk
                    && chunk.bucket(cc.segment().address() + cc.offset()) == bucket) {
                b = candidate;
            }
        }
        assertNotNull(b, "a second word in the same bucket");
        Thread[] t = new Thread[1];
        CompletableFuture<WaitResult> waiter = waitOn(b, Duration.ofSeconds(2), t);
        while (sleepers(b) < 1) {
            Thread.onSpinWait();
        }
        untilParked(t[0]);
        int woken = a.wake();
        assertEquals(WaitResult.TIMED_OUT, waiter.get(30, TimeUnit.SECONDS), "b was never woken, nor changed");
        assertEquals(0, woken, "a has no waiters");
    }

    /**
     * While a pool is open, a chunk whose values are all unreachable (and that is not the one being
     * allocated from) is deleted: a long-lived pool plus a shared value per request does not fill
     * /dev/shm (64 MiB in a default Docker container).
     */
    @Test
    void garbageValuesDoNotGrowTheFilesWithoutBound() throws Exception {
        for (int i = 0; i < 200_000; i++) { // 200,000 × 64 bytes = 12.8 MB of garbage
            Shared.shared(Shared.int32Atomic).store(i);
        }
        long bytes = Long.MAX_VALUE;
        for (int round = 0; round < 100 && bytes > 4L << 20; round++) { // the cleanups run after a collection
            System.gc();
            try (Stream<Path> files = Files.list(directory)) {
                bytes = files.mapToLong(f -> f.toFile().length()).sum();
            }
        }
        assertTrue(bytes <= 4L << 20, "the chunk files hold " + (bytes >> 20) + " MiB for values nobody can reach");
    }

    /**
     * /dev/shm full (a container's 64 MiB, say): a sparse chunk file would make shared(…) succeed and
     * the first store to a page the tmpfs cannot supply take SIGBUS ({@code InternalError}); the
     * pages are written when the chunk is made, so that fails instead, and values fall back to this
     * JVM's memory with the reason kept. Needs root and unshare(1) to mount a small tmpfs on
     * /dev/shm in a private mount namespace; skipped otherwise.
     */
    @Test
    void aFullDevShmFallsBackAtTheAllocationWithItsReason() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare")), "needs unshare");
        String java = ProcessHandle.current().info().command().orElseThrow();
        String classPath = Path.of("target/classes").toAbsolutePath() + ":" + Path.of("target/test-classes").toAbsolutePath();
        Process child = new ProcessBuilder("/usr/bin/unshare", "-m", "sh", "-c",
                "mount -t tmpfs -o size=3m tmpfs /dev/shm && exec \"$0\" --enable-native-access=ALL-UNNAMED -cp \"$1\" "
                        + FullShmMain.class.getName(), java, classPath)
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        org.junit.jupiter.api.Assumptions.assumeTrue(output.contains("directory /dev/shm/"), "could not mount: " + output);
        assertFalse(output.contains("InternalError"), output);
        assertTrue(output.contains("no failure after 10000 values") && output.contains("fallback: could not make a file")
                && output.contains("No space left on device"), output);
        int inFiles = Integer.parseInt(output.replaceAll("(?s).*values, (\\d+) in files.*", "$1"));
        assertTrue(inFiles > 0 && inFiles < 10_000, "some values in the files, then the rest in this JVM: " + output);
    }

    /**
     * NativeFutex's downcallHandle is restricted: without --enable-native-access for moroutine's
     * module it is never made (no JDK warning on the user's stderr), and shared files are not
     * enabled, with a reason that names the flag (an isolated pool then opens, and a shared value
     * passed to it fails with that reason).
     */
    @Test
    void withoutNativeAccessNothingWarnsAndTheReasonNamesTheFlag() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String classPath = Path.of("target/classes").toAbsolutePath() + ":" + Path.of("target/test-classes").toAbsolutePath();
        Process child = new ProcessBuilder(java, "-cp", classPath, EnableMain.class.getName()).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertTrue(output.contains("not enabled: ") && output.contains("--enable-native-access=ALL-UNNAMED"), output);
        assertFalse(output.contains("restricted method"), output);
    }
}
