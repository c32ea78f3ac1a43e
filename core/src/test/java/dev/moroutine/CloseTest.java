package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.NoLeakedWorkers;
import dev.moroutine.testing.Stress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** What holds when {@link Runner#close()} returns, and what it says while it waits. */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(120)
class CloseTest {

    /** Issue 8 item 4: the dying thread used to count the worker down before failing the task that killed it. */
    @Test
    void whenCloseReturnsTheTaskThatKilledItsWorkerHasFailed() {
        int notDone = 0;
        for (int i = 0; i < Stress.scaled(300); i++) {
            Runner pool = workers(1);
            CompletableFuture<Integer> dying = pool.submit(WorkerDeathTest.overflow.call(0));
            pool.close();
            if (!dying.isDone()) {
                notDone++;
            }
            CompletionException e = assertThrows(CompletionException.class, dying::join);
            assertInstanceOf(WorkerDiedException.class, e.getCause());
        }
        assertEquals(0, notDone, "close() returned before the dead worker's task had failed");
    }
}
