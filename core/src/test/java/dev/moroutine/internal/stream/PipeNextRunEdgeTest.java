package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.TaskFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Pipe#nextRun} at its edges. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PipeNextRunEdgeTest {

    /** An empty array: "up to into.length" items is none, yet the run takes an item first, then cannot store it. */
    @Test
    void anEmptyArrayTakesNoItem() {
        Pipe<Object> pipe = Pipe.forwarding(4, "review pipe");
        pipe.emit(1);
        pipe.finish();
        try {
            assertEquals(0, pipe.nextRun(new Object[0]));
        } catch (RuntimeException refused) {
            // refusing an empty array is fine, as long as the item stays for the next run
        }
        Object[] run = new Object[4];
        assertEquals(1, pipe.nextRun(run), "the item taken by the run into an empty array is lost");
        assertEquals(1, run[0]);
    }

    /** Seeded runs of random lengths against a producer on another thread: every item once, in order, then the failure. */
    @Test
    void runsCarryEveryItemInOrderThenTheFailure() throws Exception {
        SplittableRandom seeds = new SplittableRandom(20261201);
        for (int round = 0; round < 300; round++) {
            int highWaterMark = 1 + seeds.nextInt(64);
            int count = seeds.nextInt(2_000);
            int length = 1 + seeds.nextInt(80);
            boolean failing = seeds.nextBoolean();
            Pipe<Object> pipe = Pipe.forwarding(highWaterMark, "review pipe " + round);
            Thread producer = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < count; i++) {
                    pipe.emit(i);
                }
                if (failing) {
                    pipe.fail(new IllegalStateException("broke after " + count));
                } else {
                    pipe.finish();
                }
            });
            List<Object> got = new ArrayList<>();
            Object[] run = new Object[length];
            TaskFailedException failed = null;
            try {
                for (int n; (n = pipe.nextRun(run)) > 0; ) {
                    assertTrue(n <= length);
                    for (int i = 0; i < n; i++) {
                        got.add(run[i]);
                    }
                    pipe.acknowledge(got.size());
                }
            } catch (TaskFailedException thrown) {
                failed = thrown;
            }
            producer.join();
            assertEquals(count, got.size(), "round " + round);
            for (int i = 0; i < count; i++) {
                assertEquals(i, got.get(i), "round " + round);
            }
            assertEquals(failing, failed != null, "round " + round);
        }
    }
}
