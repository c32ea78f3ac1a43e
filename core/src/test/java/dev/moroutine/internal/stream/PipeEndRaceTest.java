package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.stream.LiveStream;
import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An emit racing a stop, a finish or a close (Pipe's class comment, "Ending"): every emit that
 * returns is taken unless the consumer closed, a refused one is never taken, nothing is taken
 * twice or after the end, and nobody hangs; a channel never gives an item to two consumers.
 */
@Timeout(120)
class PipeEndRaceTest {

    private static final int ITEMS = 12;
    private static final long WAIT_SECONDS = 10;

    /** What the producer got: how many of its emits returned before one was refused. */
    private record Run(int accepted, List<Integer> taken, boolean consumerEndedNormally) {}

    private static Run race(int highWaterMark, boolean stopper, boolean closer) throws Exception {
        Pipe<Integer> pipe = new Pipe<>(highWaterMark, "race pipe");
        int parties = 2 + (stopper ? 1 : 0) + (closer ? 1 : 0);
        CyclicBarrier start = new CyclicBarrier(parties);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int stopDelay = random.nextInt(2_000);
        int closeDelay = random.nextInt(2_000);
        CompletableFuture<Integer> producer = CompletableFuture.supplyAsync(() -> {
            await(start);
            int accepted = 0;
            try {
                for (int i = 1; i <= ITEMS; i++) {
                    pipe.emit(i);
                    accepted++;
                }
                pipe.finish();
            } catch (CancellationException refused) {
                // stopped or closed: the rest is not emitted
            }
            return accepted;
        }, PipeEndRaceTest::thread);
        CompletableFuture<?> stop = !stopper ? CompletableFuture.completedFuture(null) : CompletableFuture.runAsync(() -> {
            await(start);
            spin(stopDelay);
            pipe.fail(new CancellationException("stopped"));
        }, PipeEndRaceTest::thread);
        CompletableFuture<?> close = !closer ? CompletableFuture.completedFuture(null) : CompletableFuture.runAsync(() -> {
            await(start);
            spin(closeDelay);
            pipe.cancel();
        }, PipeEndRaceTest::thread);
        List<Integer> taken = new ArrayList<>();
        boolean normal;
        await(start);
        try {
            for (Object item; (item = pipe.next()) != ItemSource.END; ) {
                taken.add((Integer) item);
            }
            normal = true;
            assertEquals(ItemSource.END, pipe.next(), "after END, END again");
        } catch (CancellationException stopped) {
            normal = false;
        }
        int accepted = producer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        stop.get(WAIT_SECONDS, TimeUnit.SECONDS);
        close.get(WAIT_SECONDS, TimeUnit.SECONDS);
        return new Run(accepted, taken, normal);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void thread(Runnable task) {
        Thread.ofPlatform().daemon(true).start(task);
    }

    private static void spin(int times) {
        for (int i = 0; i < times; i++) {
            Thread.onSpinWait();
        }
    }

    private static List<Integer> upTo(int n) {
        return IntStream.rangeClosed(1, n).boxed().toList();
    }

    @Test
    void anEmitRacingAStopIsTakenExactlyWhenItReturns() throws Exception {
        for (int i = 0; i < Stress.scaled(10_000); i++) {
            Run run = race(1 + i % 4, true, false);
            assertEquals(upTo(run.accepted()), run.taken(), "run " + i + ": the items taken are the emits that returned");
            assertEquals(run.accepted() == ITEMS && run.consumerEndedNormally(), run.consumerEndedNormally(), "run " + i);
        }
    }

    @Test
    void anEmitRacingACloseIsNeverTakenTwiceNorWhenRefused() throws Exception {
        for (int i = 0; i < Stress.scaled(10_000); i++) {
            Run run = race(1 + i % 4, i % 2 == 0, true);
            List<Integer> taken = run.taken();
            assertEquals(upTo(taken.size()), taken, "run " + i + ": in order, once each");
            assertTrue(taken.size() <= run.accepted(), "run " + i + ": a refused emit was taken: " + run);
        }
    }

    /**
     * A stop from another thread (a future completed from outside: no interrupt) while the
     * producer waits for room, then the consumer's close: the producer must not wait forever.
     */
    @Test
    void aProducerWaitingForRoomIsReleasedByAStopThenAClose() throws Exception {
        for (int i = 0; i < Stress.scaled(20); i++) {
            Pipe<Integer> pipe = new Pipe<>(1, "full pipe");
            CompletableFuture<String> second = new CompletableFuture<>();
            Thread producer = Thread.ofPlatform().daemon(true).start(() -> {
                pipe.emit(1);
                try {
                    pipe.emit(2); // waits for room
                    second.complete("accepted");
                } catch (CancellationException refused) {
                    second.complete("refused");
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (producer.getState() != Thread.State.WAITING) { // parked for room, past its spin
                assertTrue(System.nanoTime() < deadline, "the producer never waited for room");
                Thread.onSpinWait();
            }
            pipe.fail(new CancellationException("stopped"));
            pipe.cancel();
            assertEquals("refused", second.get(WAIT_SECONDS, TimeUnit.SECONDS), "run " + i);
        }
    }

    @Test
    void aChannelGivesNoItemToTwoConsumersWhileSomeClose() throws Exception {
        int items = 2_000;
        for (int round = 0; round < Stress.scaled(200); round++) {
            ChannelImpl<Integer> channel = new ChannelImpl<>(upTo(items), 1 + round % 3);
            int consumers = 4;
            List<LiveStream<Integer>> ends = new ArrayList<>();
            for (int c = 0; c < consumers; c++) {
                ends.add(channel.join());
            }
            List<CompletableFuture<List<Integer>>> takers = new ArrayList<>();
            for (int c = 0; c < consumers; c++) {
                LiveStream<Integer> end = ends.get(c);
                int closeAfter = c < 2 ? ThreadLocalRandom.current().nextInt(50) : Integer.MAX_VALUE;
                takers.add(CompletableFuture.supplyAsync(() -> {
                    List<Integer> got = new ArrayList<>();
                    Iterator<Integer> it = end.iterator();
                    while (got.size() < closeAfter && it.hasNext()) {
                        got.add(it.next());
                    }
                    end.close();
                    return got;
                }, PipeEndRaceTest::thread));
            }
            BitSet seen = new BitSet();
            int total = 0;
            for (CompletableFuture<List<Integer>> taker : takers) {
                for (int item : taker.get(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    assertTrue(!seen.get(item), "round " + round + ": item " + item + " reached two consumers");
                    seen.set(item);
                    total++;
                }
            }
            // At most what two closed consumers held (their high-water marks, plus one racing emit each) is lost.
            assertTrue(total >= items - 2 * (1 + round % 3 + 1), "round " + round + ": only " + total + " of " + items + " taken");
        }
    }
}
