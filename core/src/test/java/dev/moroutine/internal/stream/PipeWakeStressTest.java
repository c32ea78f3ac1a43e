package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.internal.dispatch.SpinBudget;
import dev.moroutine.testing.Stress;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The producer's and the consumer's wake-ups (see {@link Pipe}: a parked producer is woken by the
 * take that makes room) lose no wake: every item arrives, in order, at every high-water mark, odd and even,
 * with both sides parking all the time (virtual threads never spin) or spinning first (platform
 * threads), each side stalling at random so that both the full and the empty pipe are met often;
 * and with both sides waiting yielding ({@link Pipe#waitsWith}), for a few microseconds so that
 * they park often too.
 */
@Timeout(120)
class PipeWakeStressTest {

    @ParameterizedTest(name = "high-water mark {0}, virtual threads {1}, both yielding {2}")
    @CsvSource({"1,true,false", "2,true,false", "3,true,false", "4,false,false", "5,true,false", "16,true,false",
        "16,false,false", "17,false,false", "1,false,true", "16,false,true", "1024,false,true"})
    void everyItemArrivesInOrderWhateverTheHighWaterMark(int highWaterMark, boolean virtual, boolean yielding)
            throws Exception {
        int items = Stress.scaled(200_000);
        for (int round = 0; round < 3; round++) {
            Pipe<Integer> pipe = new Pipe<>(highWaterMark, "the stress pipe");
            if (yielding) {
                pipe.waitsWith(SpinBudget.yielding(5_000));
            }
            long seed = 31L * highWaterMark + round;
            Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
            int taken = PipeStress.run(pipe, builder, seed, random -> {
                for (int i = 0; i < items; i++) {
                    PipeStress.stall(random, 64);
                    pipe.emit(i);
                }
            }, count -> { }, random -> PipeStress.stallSpins(random, 64));
            assertEquals(items, taken);
        }
    }
}
