package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-offs of a stream's pulls under stress: the take that reaches a pull's count, the pump, the
 * answer and the consumer's close race around every batch boundary. Each stream gives its items once,
 * in order, up to where its consumer stops, and once closed or read to its end it is settled (its
 * worker counts no task) and leaves no pump thread. Streams read at once by several consumers, whose
 * pulls and answers share Hazelcast's threads, each give every item once, in order.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PullRaceStressTest {

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("pull-race");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    private static Pool pool(int highWaterMark) {
        return Cluster.workers(two.get(0), ClusterOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withHighWaterMark(highWaterMark).withThreadNamePrefix("pull-race")));
    }

    /** Waits, with a deadline, until the worker counts no task and no pump thread is alive; says what is left otherwise. */
    private static String awaitSettled(WorkerHandle worker) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            int pumps = Pumps.alive(Pumps.of("pull-race")).size();
            if (worker.activeCount() == 0 && pumps == 0) {
                return "settled";
            }
            if (System.nanoTime() > deadline) {
                return worker.activeCount() + " tasks active, " + pumps + " pump threads";
            }
            Thread.yield(); // look again until the deadline: a condition, not a sleep
        }
    }

    @Test
    void streamsClosedAroundEveryBatchBoundarySettleOnce() {
        SplittableRandom random = new SplittableRandom(1212);
        for (int highWaterMark : new int[] {1, 2, 3, 8, 64}) {
            try (Pool pool = pool(highWaterMark)) {
                WorkerHandle remote = Members.remote(pool);
                for (int round = 0; round < 40; round++) {
                    int closeAt = random.nextInt(3 * highWaterMark + 2);
                    try (LiveStream<Integer> items = pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                        Iterator<Integer> it = items.iterator();
                        for (int i = 0; i < closeAt; i++) {
                            assertEquals(i, it.next(), "hwm " + highWaterMark + ", round " + round);
                        }
                    }
                }
                assertEquals("settled", awaitSettled(remote), "hwm " + highWaterMark);
            }
        }
    }

    @Test
    void streamsReadToTheirEndAtChangingPacesGiveEveryItemOnce() {
        SplittableRandom random = new SplittableRandom(1213);
        for (int round = 0; round < 60; round++) {
            int highWaterMark = 1 + random.nextInt(random.nextBoolean() ? 4 : 256);
            int count = random.nextInt(5 * highWaterMark + 3);
            int slowEvery = 1 + random.nextInt(2 * highWaterMark + 1);
            try (Pool pool = pool(highWaterMark)) {
                WorkerHandle remote = Members.remote(pool);
                try (LiveStream<Integer> items = pool.run(Moroutine.assign(remote, Jobs.numbers.call(count)))) {
                    Iterator<Integer> it = items.iterator();
                    for (int i = 0; i < count; i++) {
                        assertEquals(i, it.next(), "round " + round + ", hwm " + highWaterMark + ", count " + count);
                        if (i % slowEvery == 0) {
                            for (long until = System.nanoTime() + 50_000; System.nanoTime() < until; ) {
                                Thread.onSpinWait(); // a slower take now and then: the pacing pulls earlier
                            }
                        }
                    }
                    assertFalse(it.hasNext(), "round " + round);
                }
                assertEquals("settled", awaitSettled(remote), "round " + round);
            }
        }
    }

    /**
     * Four consumers at once, each reading streams of its own high-water mark from one of the two
     * members (their pulls and answers sharing Hazelcast's threads), get every item once, in order.
     */
    @Test
    void concurrentStreamsGiveEveryItemOnceInOrder() throws Exception {
        int[] highWaterMarks = {1, 7, 64, 256};
        try (ExecutorService consumers = Executors.newFixedThreadPool(highWaterMarks.length)) {
            List<Future<Long>> read = new ArrayList<>();
            for (int c = 0; c < highWaterMarks.length; c++) {
                int highWaterMark = highWaterMarks[c];
                int member = c;
                read.add(consumers.submit(() -> {
                    long total = 0;
                    int count = Math.min(20_000, 300 * highWaterMark); // a batch a round trip: a window of 1 is slow
                    try (Pool own = pool(highWaterMark)) {
                        WorkerHandle there = own.workers().get(member % own.workers().size());
                        for (int round = 0; round < 5; round++) {
                            try (LiveStream<Integer> items = own.run(Moroutine.assign(there, Jobs.numbers.call(count)))) {
                                int expected = 0;
                                for (Integer item : (Iterable<Integer>) items::iterator) {
                                    assertEquals(expected++, item, "hwm " + highWaterMark + ", round " + round);
                                }
                                assertEquals(count, expected, "hwm " + highWaterMark + ", round " + round);
                                total += expected;
                            }
                        }
                    }
                    return total;
                }));
            }
            for (int c = 0; c < read.size(); c++) {
                assertEquals(5L * Math.min(20_000, 300 * highWaterMarks[c]), read.get(c).get(240, TimeUnit.SECONDS));
            }
        }
    }
}
