package dev.moroutine.cluster;

import static dev.moroutine.stream.Streaming.streaming;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pull that takes from the member's pipe itself, at its boundaries: a long stream whose producer
 * and consumer both stall at random (across the linger of a pull, and now and then across a pull's
 * whole wait), so that pulls end at their deadline, at their linger, with full credit and at the end;
 * every item comes exactly once, in order, at windows of 1024, 7 and 1.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StallingStreamTest {

    /** Stalls are spins on the clock (parkNanos), not waits for an event: they only shift timing. */
    private static void stall(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** {@code n} numbers; with a seed's randomness, the producer stalls now and then (a linger, rarely a pull's whole wait). */
    static final StreamMo1<Integer, Integer> stalling = streaming((Integer n) -> {
        SplittableRandom random = new SplittableRandom(n);
        return IntStream.range(0, n).boxed().peek(i -> {
            int dice = random.nextInt(20_000);
            if (dice < 40) {
                stall(TimeUnit.MICROSECONDS.toNanos(200 + random.nextInt(2_000))); // around a pull's linger
            } else if (dice == 40 && random.nextInt(4) == 0) {
                stall(TimeUnit.MILLISECONDS.toNanos(180 + random.nextInt(40))); // around a pull's whole wait
            }
        });
    });

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("stalling-stream");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    private static void streamExactly(int highWaterMark, int count) {
        SplittableRandom random = new SplittableRandom(highWaterMark);
        try (Pool pool = Members.pool(two.get(0), highWaterMark);
                LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), stalling.call(count)))) {
            Iterator<Integer> it = items.iterator();
            for (int taken = 0; taken < count; taken++) {
                assertEquals(taken, it.next(), "item " + taken);
                int dice = random.nextInt(10_000);
                if (dice < 20) {
                    stall(TimeUnit.MICROSECONDS.toNanos(100 + random.nextInt(3_000))); // a slow take
                } else if (dice < 200) {
                    stall(2_000); // a consumer slower than a take
                }
            }
            assertFalse(it.hasNext(), "nothing after the last item");
        }
    }

    @Test
    void aHundredThousandItemsWithStallsComeExactlyOnceInOrderAtAWindowOf1024() {
        streamExactly(1024, 100_000);
    }

    @Test
    void aHundredThousandItemsWithStallsComeExactlyOnceInOrderAtAWindowOf7() {
        streamExactly(7, 100_000);
    }

    @Test
    void aHundredThousandItemsWithStallsComeExactlyOnceInOrderAtAWindowOf1() {
        streamExactly(1, 30_000);
    }
}
