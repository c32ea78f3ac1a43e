package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A take that decided on arming N's count (reached) and the pump's arming N+1 (count not reached)
 * race: the take must run N's wake or none, never N+1's, early (as it did while the arming was a
 * count, a waker and a parked flag, written in turn and read in turn). Each round: two items
 * queued, the pump armed for 1; the consumer's take (count 1) races the pump's arming for 5, each
 * after a random few spins. The test counts the rounds where the second arming's waker ran
 * although one item was taken.
 */
@Timeout(120)
class PipeStepWakeNextArmingRaceTest {

    private static final int ROUNDS = 200_000;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);

    private volatile Pipe<Object> pipe;
    private volatile int go;
    private volatile int done;

    @Test
    void aTakeDecidedOnTheFirstArmingNeverRunsTheSecondsWaker() throws Exception {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        FutureTask<Void> taker = new FutureTask<>(() -> {
            SplittableRandom random = new SplittableRandom(1);
            for (int r = 1; r <= ROUNDS; r++) {
                awaitRound(() -> go, r, deadline);
                spin(random.nextInt(64));
                pipe.next(); // the take that reaches 1, the first arming's count
                done = r;
            }
            return null;
        });
        Thread.ofPlatform().daemon().name("test-taker").start(taker);
        SplittableRandom random = new SplittableRandom(2);
        int early = 0;
        for (int r = 1; r <= ROUNDS; r++) {
            Pipe<Object> p = Pipe.of(8, "a step pipe");
            p.emit(r);
            p.emit(r);
            int[] ranSecond = new int[1];
            p.wakeOnConsumption(1, () -> { });
            pipe = p;
            go = r;
            spin(random.nextInt(64));
            p.wakeOnConsumption(5, () -> ranSecond[0]++); // the pump saw the count itself (or not yet), armed its next step
            awaitRound(() -> done, r, deadline);
            if (ranSecond[0] > 0) {
                early++;
            }
        }
        taker.get(60, TimeUnit.SECONDS);
        assertEquals(0, early, "rounds where the second arming's waker (count 5) ran on a take of 1");
    }

    private static void spin(int spins) {
        for (int i = spins; i > 0; i--) {
            Thread.onSpinWait();
        }
    }

    /** Waits for the other thread to reach round {@code round}; yields now and then, as the two may share a core. */
    private static void awaitRound(IntSupplier reached, int round, long deadline) {
        for (int spins = 1; reached.getAsInt() != round; spins++) {
            if ((spins & 1023) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("round " + round + " did not end: the other thread is stuck or failed");
                }
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
