package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.Shared;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker JVM that dies holding a shared lock: the documented limit (Mutex, "Across processes"). */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SharedOwnerDiedTest {

    /** Takes the mutex and dies holding it, as a task that crashes in native code or is killed on its timeout. */
    public static final Mo1<Mutex, Integer> lockAndHalt = mo(mutex -> {
        mutex.lock();
        Runtime.getRuntime().halt(7);
        return 0;
    });

    /**
     * A worker JVM that dies holding a shared Mutex leaves it locked (no owner is recorded in the
     * word, so nothing can tell; a robust mutex is not done): a timed lock fails, and its message
     * says why that may be, and the pool goes on.
     */
    @Test
    void aWorkerThatDiesHoldingASharedMutexLeavesItLockedAndATimedLockSaysWhy() throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            Mutex mutex = Shared.shared(Shared.mutex);
            CompletionException died = assertThrows(CompletionException.class, () -> pool.submit(lockAndHalt.call(mutex)).join());
            assertInstanceOf(WorkerDiedException.class, died.getCause());
            assertTrue(mutex.isLocked(), "still held by the dead worker JVM");
            TimeoutException stuck = assertThrows(TimeoutException.class, () -> mutex.lock(Duration.ofMillis(200)));
            assertTrue(stuck.getMessage().contains("one that died holding it") && stuck.getMessage().contains("records no owner"),
                    stuck.getMessage());
            assertEquals(9, pool.submit(Jobs.square.call(3)).join(), "the pool goes on");
        }
    }
}
