package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a stream closed early leaves behind (the caller's pump, the member's producer), and seeded shapes. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamCleanupTest {

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("stream-cleanup");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    /** What the stream does next, for a failure's message: its next items, or how it failed. */
    private static String nextOf(Iterator<Integer> items) {
        try {
            return "the stream goes on with " + items.next() + ", " + items.next();
        } catch (RuntimeException failed) {
            return "the stream failed: " + failed;
        }
    }

    @Test
    void streamsClosedEarlyLeaveNoPumpNorProducer() throws Exception {
        try (Pool pool = Members.pool(two.get(0), 64)) {
            WorkerHandle remote = Members.remote(pool);
            try (LiveStream<Integer> open = pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                Iterator<Integer> it = open.iterator();
                assertEquals(0, it.next());
                assertFalse(Pumps.alive(Pumps.ANY).isEmpty(), () -> "no pump thread while a stream is open; " + nextOf(it));
            }
            for (int i = 0; i < 100; i++) {
                try (LiveStream<Integer> items = pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                    Iterator<Integer> it = items.iterator();
                    for (int k = 0; k < 10; k++) {
                        assertEquals(k, it.next());
                    }
                }
            }
            // The member runs this pool's tasks on one worker thread, and a producer that was not stopped would hold
            // it, waiting for credit: the streams opened after the first, and this task, run only if each stopped.
            assertEquals(9, pool.submit(Moroutine.assign(remote, Jobs.square.call(3))).get(30, TimeUnit.SECONDS),
                    "the member's worker is free");
            assertEquals("none", Pumps.awaitNone(Pumps.ANY), "pump threads left in the caller");
        }
    }

    /** Seeded high-water marks, sizes and consumer speeds: every item once, in order, then the end. */
    @Test
    void seededShapesCarryEveryItemOnceInOrder() {
        SplittableRandom seeds = new SplittableRandom(1201);
        for (int round = 0; round < 40; round++) {
            int highWaterMark = 1 + seeds.nextInt(seeds.nextBoolean() ? 8 : 3000);
            int count = seeds.nextInt(20_000);
            int pauseEvery = 1 + seeds.nextInt(500);
            try (Pool pool = Members.pool(two.get(0), highWaterMark);
                    LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.numbers.call(count)))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < count; i++) {
                    assertEquals(i, it.next(), "round " + round + " hwm " + highWaterMark + " count " + count);
                    if (i % pauseEvery == 0) {
                        for (long until = System.nanoTime() + 200_000; System.nanoTime() < until; ) {
                            Thread.onSpinWait(); // a slow consumer now and then
                        }
                    }
                }
                assertFalse(it.hasNext(), "round " + round);
            }
        }
    }
}
