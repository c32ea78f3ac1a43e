package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.shared.Guard;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.Shared;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Review of shared memory across worker JVMs (branch shm): each test fails on 1cb361d. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SharedReviewTest {

    /** Takes the mutex and dies holding it, as a task that crashes in native code or is killed on its timeout. */
    public static final Mo1<Mutex, Integer> lockAndHalt = mo(mutex -> {
        mutex.lock();
        Runtime.getRuntime().halt(7);
        return 0;
    });

    /**
     * Crash containment is why isolated workers exist ("fails alone while the pool goes on"), but a
     * worker JVM that dies holding a shared Mutex leaves it locked for good: every other process
     * that locks it then hangs (lock() forever). No owner is recorded in the word, so nothing can
     * tell (robust futexes: FUTEX_OWNER_DIED; pthread's EOWNERDEAD).
     */
    @Test
    void aWorkerThatDiesHoldingASharedMutexDoesNotLockOutTheRest() throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            Mutex mutex = Shared.shared(Shared.mutex);
            CompletionException died = assertThrows(CompletionException.class, () -> pool.submit(lockAndHalt.call(mutex)).join());
            assertInstanceOf(WorkerDiedException.class, died.getCause());
            // The parent (or the replacement worker) should get the lock, or a clear "its owner died" error.
            try (Guard _ = mutex.lock(Duration.ofSeconds(10))) {
                // acquired
            } catch (java.util.concurrent.TimeoutException stuck) {
                throw new AssertionError("the mutex is still held by a JVM that died 10 s ago; lock() would hang forever", stuck);
            }
        }
    }
}
