package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Pipe#awaitReady}, the consumer's wait with a deadline (a cluster member's pull): it returns
 * at once when an item is queued or the pipe has ended, false at the deadline when nothing came,
 * and an emit, a finish or a cancel from another thread ends it; it takes nothing; a consumer that
 * moves between threads takes every item once, in order. And {@link Pipe#awaitItems}, the wait for a
 * batch: the same, except that only the emit that completes the batch ends it.
 */
@Timeout(60)
class PipeAwaitReadyTest {

    private static final long LONG = TimeUnit.SECONDS.toNanos(30);
    private static final int MOVING_ITEMS = 100_000;

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

    /**
     * Found by review of dd058ca: a wait whose deadline fell within its spin budget ended its spin
     * halfway there (the time left compared with the time waited) or after a look again had passed
     * the deadline, and then parked for what was left, which the OS overshoots by tens of
     * microseconds. The median of many such waits stays within the spin's reach of the deadline.
     */
    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {64, 16}) // a consumer that looks again later, and one that does not
    void aDeadlineWithinTheSpinBudgetIsMetWithoutAPark(int highWaterMark) throws InterruptedException {
        Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "with one processor a wait never spins");
        Pipe<Object> pipe = new Pipe<>(highWaterMark, "a pipe");
        long[] late = new long[2_000];
        for (int i = 0; i < late.length; i++) {
            long deadline = System.nanoTime() + 10_000;
            assertFalse(pipe.awaitReady(deadline));
            late[i] = System.nanoTime() - deadline;
        }
        Arrays.sort(late);
        assertTrue(late[late.length / 2] < 30_000, "median late by " + late[late.length / 2] + " ns");
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

    @ParameterizedTest(name = "waiting for {0}")
    @ValueSource(strings = {"an item", "a batch"})
    void theEndAndACancelEndTheWait(String waitingFor) throws Exception {
        for (int i = 0; i < 500; i++) {
            Pipe<Object> finished = Pipe.forwarding(4, "a forwarding pipe");
            CompletableFuture<Void> finisher = CompletableFuture.runAsync(finished::finish, Thread::startVirtualThread);
            assertTrue(await(waitingFor, finished, System.nanoTime() + LONG), "round " + i);
            assertSame(ItemSource.END, finished.next());
            finisher.get(30, TimeUnit.SECONDS);

            Pipe<Object> cancelled = Pipe.forwarding(4, "a forwarding pipe");
            CompletableFuture<Void> canceller = CompletableFuture.runAsync(cancelled::cancel, Thread::startVirtualThread);
            assertTrue(await(waitingFor, cancelled, System.nanoTime() + LONG), "round " + i);
            assertSame(ItemSource.END, cancelled.next());
            canceller.get(30, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "waiting for {0}")
    @ValueSource(strings = {"an item", "a batch"})
    void anInterruptEndsTheWaitWithAMessageAndLeavesThePipeOpen(String waitingFor) throws InterruptedException {
        Pipe<Object> pipe = Pipe.forwarding(4, "the stream of a test");
        Thread.currentThread().interrupt();
        InterruptedException thrown = assertThrows(InterruptedException.class, () -> await(waitingFor, pipe, System.nanoTime() + LONG));
        assertEquals(waitingFor.equals("a batch") ? "interrupted while waiting for items of the stream of a test"
                : "interrupted while waiting for an item of the stream of a test", thrown.getMessage());
        assertFalse(Thread.currentThread().isInterrupted(), "the interrupt is reported by the exception");
        pipe.emit("after");
        pipe.emit("and more");
        assertTrue(await(waitingFor, pipe, System.nanoTime()));
        assertEquals("after", pipe.next());
    }

    /** {@link Pipe#awaitReady}, or {@link Pipe#awaitItems} for 2 items. */
    private static boolean await(String waitingFor, Pipe<Object> pipe, long deadline) throws InterruptedException {
        return waitingFor.equals("a batch") ? pipe.awaitItems(2, deadline) : pipe.awaitReady(deadline);
    }

    @Test
    void queuedItemsReturnAtOnceAndFewerThanTheBatchPastItsDeadline() throws InterruptedException {
        Pipe<Object> pipe = Pipe.forwarding(4, "a forwarding pipe");
        pipe.emit("a");
        pipe.emit("b");
        assertTrue(pipe.awaitItems(2, System.nanoTime() + LONG));
        assertTrue(pipe.awaitItems(3, System.nanoTime() - 1), "fewer than the batch, past the deadline: ready still");
        assertEquals("a", pipe.next(), "nothing was taken by the waits");
    }

    @Test
    void nothingByTheDeadlineIsFalseForABatchToo() throws InterruptedException {
        Pipe<Object> pipe = Pipe.forwarding(4, "a forwarding pipe");
        long start = System.nanoTime();
        assertFalse(pipe.awaitItems(2, start + TimeUnit.MILLISECONDS.toNanos(20)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20), "it waited until the deadline");
    }

    /** The emits short of the batch, from another thread, do not end the wait: it lasts until its deadline. */
    @Test
    void emitsShortOfTheBatchDoNotEndItsWait() throws Exception {
        Pipe<Object> pipe = Pipe.forwarding(8, "a forwarding pipe");
        long start = System.nanoTime();
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 3; i++) {
                pipe.emit(i);
            }
        }, Thread::startVirtualThread);
        assertTrue(pipe.awaitItems(4, start + TimeUnit.MILLISECONDS.toNanos(50)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50), "3 items of 4 ended the wait early");
        producer.get(30, TimeUnit.SECONDS);
        Object[] run = new Object[8];
        assertEquals(3, pipe.nextRun(run));
    }

    @Test
    void theEmitThatCompletesTheBatchEndsTheWaitEveryTime() throws Exception {
        for (int i = 0; i < 2_000; i++) {
            Pipe<Object> pipe = Pipe.forwarding(4, "a forwarding pipe");
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                for (int item = 0; item < 4; item++) {
                    pipe.emit(item);
                }
            }, Thread::startVirtualThread);
            assertTrue(pipe.awaitItems(4, System.nanoTime() + LONG), "round " + i);
            Object[] run = new Object[4];
            assertEquals(4, pipe.nextRun(run), "round " + i + ": woken before the batch was there");
            assertEquals(List.of(0, 1, 2, 3), List.of(run));
            producer.get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A forwarding pipe's consumer that moves from thread to thread under a lock, as a cluster member's
     * pulls do (each on an executor thread Hazelcast picks), waiting with short deadlines that often
     * expire as items come, then taking runs; the requester acknowledges what each answer carried.
     */
    @ParameterizedTest(name = "waiting for {0}")
    @ValueSource(strings = {"an item", "a batch"})
    @Timeout(120)
    void aConsumerMovingBetweenThreadsTakesEveryItemOnceInOrder(String waitingFor) throws Exception {
        boolean batch = waitingFor.equals("a batch");
        for (int highWaterMark : new int[] {1, 3, 64}) {
            Pipe<Object> pipe = Pipe.forwarding(highWaterMark, "a forwarding pipe");
            ReentrantLock pulling = new ReentrantLock();
            Object[] run = new Object[Math.min(highWaterMark, 16)];
            ExecutorService executors = Executors.newFixedThreadPool(3);
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                SplittableRandom random = new SplittableRandom(highWaterMark);
                for (int i = 0; i < MOVING_ITEMS; i++) {
                    pipe.emit(i);
                    if (random.nextInt(1_000) == 0) {
                        LockSupport.parkNanos(random.nextInt(50_000)); // a stall: shifts timing only
                    }
                }
                pipe.finish();
            }, task -> Thread.ofPlatform().daemon().start(task));
            try {
                SplittableRandom random = new SplittableRandom(~highWaterMark);
                long received = 0;
                boolean ended = false;
                while (!ended) {
                    long acknowledged = received;
                    long wait = random.nextInt(4) == 0 ? 0 : random.nextInt(30_000);
                    // one pull, on a pool thread: acknowledge, then take what is ready by a deadline
                    Object[] answer = CompletableFuture.supplyAsync(() -> {
                        pipe.acknowledge(acknowledged);
                        pulling.lock();
                        try {
                            List<Object> out = new ArrayList<>();
                            long deadline = System.nanoTime() + wait;
                            // waiting for a batch: all the producer may emit on this credit (all it received is acknowledged),
                            // as a member's pull does
                            while (out.size() < run.length && (batch
                                    ? pipe.awaitItems(highWaterMark - out.size(), deadline)
                                    : pipe.awaitReady(deadline))) {
                                int n = pipe.nextRun(run);
                                if (n == 0) {
                                    out.add(ItemSource.END);
                                    break;
                                }
                                for (int i = 0; i < n; i++) {
                                    out.add(run[i]);
                                }
                            }
                            return out.toArray();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        } finally {
                            pulling.unlock();
                        }
                    }, executors).get(30, TimeUnit.SECONDS);
                    for (Object item : answer) {
                        if (item == ItemSource.END) {
                            ended = true;
                        } else {
                            assertEquals(received, ((Integer) item).longValue(), "window " + highWaterMark);
                            received++;
                        }
                    }
                }
                assertEquals(MOVING_ITEMS, received, "window " + highWaterMark);
                producer.get(30, TimeUnit.SECONDS);
            } finally {
                executors.shutdownNow();
            }
        }
    }
}
