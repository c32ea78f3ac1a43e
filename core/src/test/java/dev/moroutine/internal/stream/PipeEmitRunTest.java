package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.testing.Stress;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Pipe#emitRun}: runs shorter and longer than the room there is arrive whole, in order,
 * with no wake-up lost (both sides parking all the time on virtual threads, or spinning first on
 * platform ones, each stalling at random so that the full and the empty pipe are met often), the
 * producer never more than the high-water mark ahead; and its refusals.
 */
@Timeout(120)
class PipeEmitRunTest {

    @ParameterizedTest(name = "high-water mark {0}, virtual threads {1}")
    @CsvSource({"1,true", "2,true", "3,false", "4,true", "16,true", "16,false", "17,false", "1024,true"})
    void runsArriveWholeInOrderWithinTheHighWaterMark(int highWaterMark, boolean virtual) throws Exception {
        int items = Stress.scaled(200_000);
        for (int round = 0; round < 3; round++) {
            Pipe<Integer> pipe = new Pipe<>(highWaterMark, "the run pipe");
            long seed = 37L * highWaterMark + round;
            Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
            int[] emittedSoFar = new int[1];
            int taken = PipeStress.run(pipe, builder, seed, random -> {
                Integer[] run = new Integer[3 * highWaterMark + 2];
                for (int next = 0; next < items; ) {
                    int count = Math.min(items - next, 1 + random.nextInt(run.length));
                    for (int i = 0; i < count; i++) {
                        run[i] = next + i;
                    }
                    PipeStress.stall(random, 16);
                    pipe.emitRun(run, count);
                    next += count;
                    synchronized (emittedSoFar) {
                        emittedSoFar[0] = next;
                    }
                }
            }, expected -> {
                // `expected` items taken: a run that returned went at most the mark beyond them
                int ahead;
                synchronized (emittedSoFar) {
                    ahead = emittedSoFar[0] - expected;
                }
                assertTrue(ahead <= highWaterMark, "the producer was " + ahead + " items ahead");
            }, random -> PipeStress.stallSpins(random, 16));
            assertEquals(items, taken);
        }
    }

    @Test
    void aNullItemIsRefusedBeforeAnyIsEmitted() {
        Pipe<Object> pipe = Pipe.of(4, "test pipe");
        NullPointerException refused = assertThrows(NullPointerException.class, () -> pipe.emitRun(new Object[] {"a", null}, 2));
        assertEquals("a null item was emitted into test pipe (item 1 of a run of 2); streams carry non-null items only"
                + " (wrap optional values in Optional)", refused.getMessage());
        pipe.finish();
        assertEquals(ItemSource.END, pipe.next());
    }

    @Test
    void aRunIntoAClosedPipeIsRefused() {
        Pipe<Object> pipe = Pipe.of(4, "test pipe");
        pipe.emitRun(new Object[] {"a", "b"}, 2);
        assertEquals("a", pipe.next());
        pipe.cancel();
        CancellationException refused = assertThrows(CancellationException.class, () -> pipe.emitRun(new Object[] {"c"}, 1));
        assertEquals("the consumer of test pipe closed it", refused.getMessage());
    }
}
