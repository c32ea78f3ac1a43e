package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Pipe#awaitReady}, the consumer's wait with a deadline (a cluster member's pull): it returns
 * at once when an item is queued or the pipe has ended, false at the deadline when nothing came,
 * and an emit, a finish or a cancel from another thread ends it; it takes nothing.
 */
@Timeout(60)
class PipeAwaitReadyTest {

    private static final long LONG = TimeUnit.SECONDS.toNanos(30);

    @Test
    void aQueuedItemIsReadyAtOnceEvenPastTheDeadline() throws InterruptedException {
        Pipe<Object> pipe = Pipe.forwarding(4, "a forwarding pipe");
        pipe.emit("a");
        assertTrue(pipe.awaitReady(System.nanoTime() - 1));
        assertEquals("a", pipe.next(), "nothing was taken by the wait");
    }

    @Test
    void nothingByTheDeadlineIsFalse() throws InterruptedException {
        Pipe<Object> pipe = Pipe.forwarding(4, "a forwarding pipe");
        long start = System.nanoTime();
        assertFalse(pipe.awaitReady(start + TimeUnit.MILLISECONDS.toNanos(20)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20), "it waited until the deadline");
        pipe.emit("late");
        assertTrue(pipe.awaitReady(System.nanoTime()), "a timed-out wait leaves the pipe as it was");
        assertEquals("late", pipe.next());
    }

    @Test
    void anEmitFromAnotherThreadEndsTheWaitEveryTime() throws Exception {
        for (int i = 0; i < 2_000; i++) {
            Pipe<Object> pipe = Pipe.forwarding(1, "a forwarding pipe");
            int item = i;
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> pipe.emit(item), Thread::startVirtualThread);
            assertTrue(pipe.awaitReady(System.nanoTime() + LONG), "round " + i);
            assertEquals(item, pipe.next());
            producer.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void theEndAndACancelEndTheWait() throws Exception {
        for (int i = 0; i < 500; i++) {
            Pipe<Object> finished = Pipe.forwarding(1, "a forwarding pipe");
            CompletableFuture<Void> finisher = CompletableFuture.runAsync(finished::finish, Thread::startVirtualThread);
            assertTrue(finished.awaitReady(System.nanoTime() + LONG), "round " + i);
            assertSame(ItemSource.END, finished.next());
            finisher.get(30, TimeUnit.SECONDS);

            Pipe<Object> cancelled = Pipe.forwarding(1, "a forwarding pipe");
            CompletableFuture<Void> canceller = CompletableFuture.runAsync(cancelled::cancel, Thread::startVirtualThread);
            assertTrue(cancelled.awaitReady(System.nanoTime() + LONG), "round " + i);
            assertSame(ItemSource.END, cancelled.next());
            canceller.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void anInterruptEndsTheWaitWithAMessageAndLeavesThePipeOpen() throws InterruptedException {
        Pipe<Object> pipe = Pipe.forwarding(4, "the stream of a test");
        Thread.currentThread().interrupt();
        InterruptedException thrown = assertThrows(InterruptedException.class, () -> pipe.awaitReady(System.nanoTime() + LONG));
        assertEquals("interrupted while waiting for an item of the stream of a test", thrown.getMessage());
        assertFalse(Thread.currentThread().isInterrupted(), "the interrupt is reported by the exception");
        pipe.emit("after");
        assertTrue(pipe.awaitReady(System.nanoTime()));
        assertEquals("after", pipe.next());
    }
}
