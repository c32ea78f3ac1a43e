package dev.moroutine.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.internal.stream.Pipe;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who sends a stream's pulls ({@link PullHandOff}): the take that reaches the pump's count, on the
 * consumer's thread, or the pump; exactly one sends each pull, and a pull never asks for more than
 * the pipe has room for.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PullHandOffTest {

    /** Records each pull's consumed count and the thread it left from; answers at once. */
    private static final class Sends implements LongFunction<Future<byte[]>> {
        final List<Long> counts = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();

        @Override
        public synchronized Future<byte[]> apply(long consumed) {
            counts.add(consumed);
            threads.add(Thread.currentThread());
            return CompletableFuture.completedFuture(new byte[0]);
        }

        synchronized int size() {
            return counts.size();
        }
    }

    /** Runs {@code body} on a new thread, as the stream's pump (the hand-off is made there). */
    private static <T> FutureTask<T> pump(Callable<T> body) {
        FutureTask<T> task = new FutureTask<>(body);
        Thread.ofPlatform().daemon().name("test-pump").start(task);
        return task;
    }

    /**
     * Starts a pump that waits for the pull at {@code pullAt}, and returns once it is parked for it
     * (so the take that reaches the count comes after the pump has armed the pipe).
     */
    private static FutureTask<PullHandOff.Sent> parkedPump(Pipe<Object> pipe, LongFunction<Future<byte[]>> send, long pullAt,
            boolean takeSends, BooleanSupplier wanted) {
        AtomicReference<PullHandOff> made = new AtomicReference<>();
        AtomicReference<Thread> thread = new AtomicReference<>();
        FutureTask<PullHandOff.Sent> pulled = pump(() -> {
            PullHandOff pulls = new PullHandOff(pipe, send);
            thread.set(Thread.currentThread());
            made.set(pulls);
            return pulls.next(pullAt, takeSends, wanted);
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (made.get() == null || LockSupport.getBlocker(thread.get()) != made.get()) {
            assertTrue(System.nanoTime() < deadline, "the pump never parked");
            Thread.onSpinWait();
        }
        return pulled;
    }

    private static Pipe<Object> filled(int items) {
        Pipe<Object> pipe = Pipe.of(Math.max(1, items), "test stream");
        Object[] run = new Object[items];
        for (int i = 0; i < items; i++) {
            run[i] = i;
        }
        pipe.emitRun(run, items); // on the test thread: it plays the pump's producer role here
        return pipe;
    }

    @Test
    void theTakeThatReachesTheCountSendsThePullFromTheConsumersThread() throws Exception {
        Pipe<Object> pipe = filled(8);
        for (int i = 0; i < 7; i++) {
            assertEquals(i, pipe.next());
        }
        Sends sends = new Sends();
        FutureTask<PullHandOff.Sent> pulled = parkedPump(pipe, sends, 8, true, () -> true);
        assertEquals(0, sends.size(), "no pull before the count is reached");
        assertEquals(7, pipe.next()); // the eighth take: it sends the pull, here
        PullHandOff.Sent sent = pulled.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(8L), sends.counts);
        assertSame(Thread.currentThread(), sends.threads.get(0));
        assertEquals(1, sent.generation());
        assertEquals(8, sent.consumed());
        assertNull(sent.refused());
    }

    @Test
    void aTakeThatLeavesItemsWakesThePumpToSendThePull() throws Exception {
        Pipe<Object> pipe = filled(8);
        pipe.next();
        Sends sends = new Sends();
        FutureTask<PullHandOff.Sent> pulled = parkedPump(pipe, sends, 4, false, () -> true);
        for (int i = 1; i < 4; i++) {
            assertEquals(i, pipe.next()); // the fourth take reaches the count, with four items still to take
        }
        PullHandOff.Sent sent = pulled.get(30, TimeUnit.SECONDS);
        assertEquals(1, sends.size());
        assertEquals("test-pump", sends.threads.get(0).getName(), "a consumer that has items does not send");
        assertTrue(sent.consumed() >= 4);
    }

    @Test
    void aCountReachedBeforeThePumpLooksIsSentByThePump() throws Exception {
        Pipe<Object> pipe = filled(4);
        for (int i = 0; i < 4; i++) {
            pipe.next();
        }
        Sends sends = new Sends();
        FutureTask<PullHandOff.Sent> pulled = pump(() -> new PullHandOff(pipe, sends).next(4, true, () -> true));
        PullHandOff.Sent sent = pulled.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(4L), sends.counts);
        assertEquals("test-pump", sends.threads.get(0).getName());
        assertEquals(4, sent.consumed());
    }

    @Test
    void aPullThatCannotLeaveIsReportedToThePumpNotThrownAtTheTake() throws Exception {
        Pipe<Object> pipe = filled(2);
        pipe.next();
        IllegalStateException gone = new IllegalStateException("the instance is shut down");
        FutureTask<PullHandOff.Sent> pulled = parkedPump(pipe, consumed -> {
            throw gone;
        }, 2, true, () -> true);
        assertEquals(1, pipe.next(), "the take that sends gets its item");
        PullHandOff.Sent sent = pulled.get(30, TimeUnit.SECONDS);
        assertSame(gone, sent.refused());
        assertNull(sent.answer());
    }

    @Test
    void aCloseWakesAWaitingPumpWithoutAPull() throws Exception {
        Pipe<Object> pipe = filled(4);
        pipe.next();
        Sends sends = new Sends();
        FutureTask<PullHandOff.Sent> pulled = parkedPump(pipe, sends, 4, true, () -> !pipe.cancelled());
        pipe.cancel();
        assertNull(pulled.get(30, TimeUnit.SECONDS), "the pump is told the stream is not wanted");
        assertEquals(0, sends.size());
    }

    /**
     * A pump and a consumer at random paces over many pulls, the pump emitting after each pull what
     * a member would send for it (the credit: the count it carries plus the high-water mark, less what
     * was sent): each pull leaves once, at or after its count, the counts never go back, every pull's
     * items fit the pipe's room (the producer's lead stays within the high-water mark), and the
     * consumer gets every item once, in order.
     */
    @Test
    void pullsRacingTheTakesLeaveOnceAndKeepTheLeadWithinTheHighWaterMark()
            throws InterruptedException, ExecutionException, TimeoutException {
        int fromTakes = 0;
        int fromPump = 0;
        for (int highWaterMark : new int[] {1, 2, 7, 64}) {
            int total = 20_000;
            Pipe<Object> pipe = Pipe.of(highWaterMark, "stress stream");
            Sends sends = new Sends();
            SplittableRandom pumpRandom = new SplittableRandom(highWaterMark);
            FutureTask<Integer> pumped = pump(() -> {
                PullHandOff pulls = new PullHandOff(pipe, sends);
                long received = 0;
                int generations = 0;
                long lastCount = 0;
                while (received < total) {
                    long untaken = received - pipe.consumedCount();
                    long pullAt = received - pumpRandom.nextLong(Math.min(untaken, highWaterMark / 2) + 1);
                    PullHandOff.Sent sent = pulls.next(pullAt, pullAt >= received, () -> true);
                    generations++;
                    assertEquals(generations, sent.generation());
                    assertTrue(sent.consumed() >= pullAt, "pull " + generations + " left at " + sent.consumed() + " < " + pullAt);
                    assertTrue(sent.consumed() >= lastCount, "the counts went back");
                    lastCount = sent.consumed();
                    int credit = (int) Math.min(total - received, sent.consumed() + highWaterMark - received);
                    assertTrue(credit <= pipe.room(), "a pull's items exceed the pipe's room: " + credit + " > " + pipe.room());
                    Object[] run = new Object[Math.max(1, credit)];
                    for (int i = 0; i < credit; i++) {
                        run[i] = (int) received + i;
                    }
                    pipe.emitRun(run, credit);
                    received += credit;
                }
                pipe.finish();
                return generations;
            });
            SplittableRandom consumerRandom = new SplittableRandom(31L * highWaterMark);
            for (int i = 0; i < total; i++) {
                for (int pause = consumerRandom.nextInt(64); pause > 0; pause--) {
                    Thread.onSpinWait(); // an uneven pace, so takes land before, at and after the pump's arming
                }
                assertEquals(i, pipe.next(), "hwm " + highWaterMark);
            }
            assertNull(pipe.nextOrNull(), "the end, after every item");
            int generations = pumped.get(60, TimeUnit.SECONDS);
            assertEquals(generations, sends.size(), "hwm " + highWaterMark + ": one send per pull");
            for (Thread sender : sends.threads) {
                if (sender == Thread.currentThread()) {
                    fromTakes++;
                } else {
                    fromPump++;
                }
            }
        }
        assertTrue(fromTakes > 0 && fromPump > 0, "both sides sent pulls: " + fromTakes + " from takes, " + fromPump + " from the pump");
    }
}
