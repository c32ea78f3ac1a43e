package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Pipe#emitRun}: a run racing a stop or a close (the late-item settling of a
 * stretch), a forwarding pipe's acknowledged room, an interrupt while waiting for room mid-run,
 * a second producer thread.
 */
@Timeout(120)
class PipeEmitRunRaceTest {

    private static final long WAIT_SECONDS = 20;
    private static final int RUN = 12;

    /** What a race gave: how many items the runs that returned held, the refused run's size (0: none), what was taken. */
    private record Race(int accepted, int refusedRun, List<Integer> taken, boolean consumerEndedNormally) {}

    private static Race race(int highWaterMark, boolean stopper, int closeAfter, long seed) throws Exception {
        Pipe<Integer> pipe = new Pipe<>(highWaterMark, "race pipe");
        SplittableRandom random = new SplittableRandom(seed);
        int stopDelay = random.nextInt(3_000);
        int runs = 1 + random.nextInt(3);
        CyclicBarrier start = new CyclicBarrier(stopper ? 3 : 2);
        CompletableFuture<int[]> producer = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                await(start);
                int accepted = 0;
                int refused = 0;
                int next = 1;
                try {
                    for (int r = 0; r < runs; r++) {
                        Integer[] run = new Integer[RUN];
                        for (int i = 0; i < RUN; i++) {
                            run[i] = next + i;
                        }
                        refused = RUN;
                        pipe.emitRun(run, RUN);
                        refused = 0;
                        accepted += RUN;
                        next += RUN;
                    }
                    pipe.finish();
                } catch (CancellationException stoppedOrClosed) {
                    // the rest is not emitted
                }
                producer.complete(new int[] {accepted, refused});
            } catch (Throwable e) {
                producer.completeExceptionally(e);
            }
        });
        CompletableFuture<Void> stop = new CompletableFuture<>();
        if (stopper) {
            Thread.ofPlatform().daemon().start(() -> {
                await(start);
                for (int i = 0; i < stopDelay; i++) {
                    Thread.onSpinWait();
                }
                pipe.fail(new CancellationException("stopped"));
                stop.complete(null);
            });
        } else {
            stop.complete(null);
        }
        await(start);
        List<Integer> taken = new ArrayList<>();
        boolean normal;
        try {
            for (Object item; taken.size() < closeAfter && (item = pipe.next()) != ItemSource.END; ) {
                taken.add((Integer) item);
            }
            normal = taken.size() < closeAfter;
            if (!normal) {
                pipe.cancel();
            }
        } catch (CancellationException stopped) {
            normal = false;
        }
        int[] outcome = producer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        stop.get(WAIT_SECONDS, TimeUnit.SECONDS);
        return new Race(outcome[0], outcome[1], taken, normal);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Integer> upTo(int n) {
        List<Integer> items = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            items.add(i);
        }
        return items;
    }

    /**
     * A stop from another thread mid-run: every run that returned is taken whole, in order; of the
     * refused run at most a prefix is taken (the documented partial delivery); nothing else.
     */
    @Test
    void aRunRacingAStopIsTakenWholeWhenItReturnsAndAtMostAPrefixWhenRefused() throws Exception {
        for (int i = 0; i < Stress.scaled(4_000); i++) {
            Race race = race(1 + i % 5, true, Integer.MAX_VALUE, i);
            List<Integer> taken = race.taken();
            String at = "round " + i + ": " + race;
            assertEquals(upTo(taken.size()), taken, at + ": in order, once each");
            assertTrue(taken.size() >= race.accepted(), at + ": a run that returned was not taken whole");
            assertTrue(taken.size() <= race.accepted() + Math.max(0, race.refusedRun() - 1),
                    at + ": more than a prefix of the refused run was taken");
            if (race.consumerEndedNormally()) {
                assertEquals(0, race.refusedRun(), at + ": the stream ended normally though a run was refused");
            }
        }
    }

    /** A close mid-run: the taken items are in order, once each, never more than were emitted; the producer is released. */
    @Test
    void aRunRacingACloseIsInOrderAndReleasesTheProducer() throws Exception {
        for (int i = 0; i < Stress.scaled(4_000); i++) {
            Race race = race(1 + i % 5, i % 2 == 0, i % (2 * RUN), i);
            List<Integer> taken = race.taken();
            String at = "round " + i + ": " + race;
            assertEquals(upTo(taken.size()), taken, at + ": in order, once each");
            assertTrue(taken.size() <= race.accepted() + race.refusedRun(), at);
        }
    }

    /** A forwarding pipe: room comes only from acknowledge, and a run never goes more than the mark beyond it. */
    @Test
    void aRunIntoAForwardingPipeStaysWithinTheAcknowledgedRoom() throws Exception {
        int highWaterMark = 4;
        int count = 40;
        Pipe<Object> pipe = Pipe.forwarding(highWaterMark, "forwarding pipe");
        Object[] run = new Object[count];
        for (int i = 0; i < count; i++) {
            run[i] = i;
        }
        CompletableFuture<Void> produced = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                pipe.emitRun(run, count);
                pipe.finish();
                produced.complete(null);
            } catch (Throwable e) {
                produced.completeExceptionally(e);
            }
        });
        Object[] into = new Object[count];
        long acknowledged = 0;
        List<Object> got = new ArrayList<>();
        for (int n; (n = pipe.nextRun(into)) > 0; ) {
            for (int i = 0; i < n; i++) {
                got.add(into[i]);
            }
            assertTrue(got.size() <= acknowledged + highWaterMark, got.size() + " items came with " + acknowledged + " acknowledged");
            acknowledged = got.size();
            pipe.acknowledge(acknowledged);
        }
        produced.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(count, got.size());
        for (int i = 0; i < count; i++) {
            assertEquals(i, got.get(i));
        }
    }

    /** An interrupt while a run waits for room: refused with the interrupt's message; the stretch before it is delivered. */
    @Test
    void anInterruptWhileARunWaitsForRoomRefusesTheRestAndKeepsTheStretchBefore() throws Exception {
        Pipe<Object> pipe = Pipe.of(2, "full pipe");
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread producer = Thread.ofPlatform().daemon().start(() -> {
            try {
                pipe.emitRun(new Object[] {"a", "b", "c", "d", "e"}, 5);
                outcome.complete("returned");
            } catch (CancellationException refused) {
                outcome.complete(refused.getMessage());
            }
            pipe.finish();
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (producer.getState() != Thread.State.WAITING) { // parked for room, past its spin
            assertTrue(System.nanoTime() < deadline, "the producer never waited for room");
            Thread.onSpinWait();
        }
        producer.interrupt();
        assertEquals("full pipe was stopped: its producer was interrupted", outcome.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("a", pipe.next());
        assertEquals("b", pipe.next());
        assertEquals(ItemSource.END, pipe.next());
    }

    /**
     * A second thread's run is refused before any item goes, with the message emit gives (but for a
     * pipe fed from another process, whose readers take turns: {@link PipeProducerTurnsTest}).
     */
    @Test
    void aSecondThreadsRunIsRefused() throws Exception {
        Pipe<Object> pipe = new Pipe<>(4, "test pipe");
        pipe.emitRun(new Object[] {"a"}, 1);
        CompletableFuture<String> other = new CompletableFuture<>();
        Thread.ofPlatform().name("intruder").daemon().start(() -> {
            try {
                pipe.emitRun(new Object[] {"b", "c"}, 2);
                other.complete("accepted");
            } catch (IllegalStateException refused) {
                other.complete(refused.getMessage());
            }
        });
        String message = other.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(message.startsWith("intruder emitted into test pipe, whose producer is "), message);
        pipe.finish();
        assertEquals("a", pipe.next());
        assertEquals(ItemSource.END, pipe.next());
    }
}
