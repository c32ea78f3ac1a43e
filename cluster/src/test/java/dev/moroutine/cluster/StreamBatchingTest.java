package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream from a member crosses in batches, each pull granting credit: the edges of that (a
 * high-water mark of 1, an empty stream, a failure after part of a batch, a slow producer, a close
 * or a member's death mid-stream), on members of this JVM, the stream always on another member.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamBatchingTest {

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("stream-test");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    /** Reads {@code count} items in order, checking at every take that the producer is at most the high-water mark ahead. */
    private static void readCounted(Iterator<Integer> items, String key, int count, int highWaterMark) {
        AtomicInteger produced = Jobs.PRODUCED.computeIfAbsent(key, k -> new AtomicInteger()); // the members share this JVM
        for (int taken = 0; taken < count; taken++) {
            assertEquals(taken, items.next());
            // Its credit is at most what was taken; one more item may be waiting in the producer's emit.
            int lead = produced.get() - (taken + 1);
            assertTrue(lead <= highWaterMark + 1, "the producer is " + lead + " items ahead at item " + taken);
        }
    }

    @Test
    void aHighWaterMarkOfOneCarriesEveryItemInOrderOneAhead() {
        try (Pool pool = Members.pool(two.get(0), 1);
                LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.counted.call("hwm-1")))) {
            readCounted(items.iterator(), "hwm-1", 300, 1);
        }
    }

    @Test
    void theProducersLeadStaysWithinTheHighWaterMarkAcrossBatches() {
        try (Pool pool = Members.pool(two.get(0), 100);
                LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.counted.call("hwm-100")))) {
            readCounted(items.iterator(), "hwm-100", 5_000, 100);
        }
    }

    /**
     * The take that reaches a pull's count sends the pull from the consumer's thread: from a virtual
     * thread too (which may park in Hazelcast's send), with every item once, in order, and the lead kept.
     */
    @Test
    void aConsumerOnAVirtualThreadSendsItsPullsAndKeepsTheLead() throws Exception {
        try (Pool pool = Members.pool(two.get(0), 64)) {
            WorkerHandle remote = Members.remote(pool);
            CompletableFuture<Void> read = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (LiveStream<Integer> items = pool.run(Moroutine.assign(remote, Jobs.counted.call("virtual-64")))) {
                    readCounted(items.iterator(), "virtual-64", 5_000, 64);
                    read.complete(null);
                } catch (Throwable failed) {
                    read.completeExceptionally(failed);
                }
            });
            read.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void anEmptyStreamEndsWithoutItems() {
        for (int highWaterMark : new int[] {1, 16}) {
            try (Pool pool = Members.pool(two.get(0), highWaterMark);
                    LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.numbers.call(0)))) {
                assertFalse(items.iterator().hasNext());
            }
        }
    }

    @Test
    void aFailureAfterPartOfABatchComesAfterEveryItemBeforeIt() {
        for (int highWaterMark : new int[] {1, 4, 1024}) {
            try (Pool pool = Members.pool(two.get(0), highWaterMark);
                    LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.failingStream.call(10)))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < 10; i++) {
                    assertEquals(i, it.next(), "high-water mark " + highWaterMark);
                }
                TaskFailedException failed = assertThrows(TaskFailedException.class, it::hasNext);
                assertEquals("stream broke after 10 items", failed.getCause().getMessage());
                assertEquals(IllegalStateException.class, failed.getCause().getClass());
            }
        }
    }

    @Test
    void aSlowProducersFirstItemDoesNotWaitForAFullBatch() {
        try (Pool pool = Members.pool(two.get(0), 1024);
                LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.gated.call(7)))) {
            Iterator<Integer> it = items.iterator();
            assertEquals(7, it.next()); // the producer now waits for the gate, with one item sent
            Jobs.GATE.countDown();
            assertEquals(8, it.next());
            assertFalse(it.hasNext());
        }
    }

    @Test
    void aStreamClosedMidBatchStopsItsProducerAndFreesTheMember() {
        for (int highWaterMark : new int[] {1, 64}) {
            try (Pool pool = Members.pool(two.get(0), highWaterMark)) {
                WorkerHandle remote = Members.remote(pool);
                try (LiveStream<Integer> items = pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                    Iterator<Integer> it = items.iterator();
                    for (int i = 0; i < 10; i++) {
                        assertEquals(i, it.next());
                    }
                }
                // The member runs one task at a time: this one runs only if the producer stopped.
                assertEquals(9, pool.run(Moroutine.assign(remote, Jobs.square.call(3))));
                assertEquals(0, remote.activeCount(), "the stream was counted out once");
            }
        }
    }

    @Test
    void aMemberThatDiesMidStreamFailsItOnceAfterTheItemsThatCame() {
        HazelcastInstance doomed = members.start();
        try (Pool pool = Members.pool(two.get(0), 16)) {
            WorkerHandle worker = pool.workers().stream()
                    .filter(w -> Cluster.member(w).getUuid().equals(doomed.getCluster().getLocalMember().getUuid()))
                    .findFirst().orElseThrow();
            try (LiveStream<Integer> items = pool.run(Moroutine.assign(worker, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < 100; i++) {
                    assertEquals(i, it.next());
                }
                doomed.getLifecycleService().terminate();
                int next = 100;
                TaskFailedException failed = null;
                while (failed == null) {
                    try {
                        if (!it.hasNext()) {
                            fail("the stream ended normally after " + next + " items");
                        }
                        assertEquals(next++, it.next());
                    } catch (TaskFailedException thrown) {
                        failed = thrown;
                    }
                }
                assertInstanceOf(WorkerDiedException.class, failed.getCause(), failed.toString());
                assertTrue(failed.getCause().getMessage().contains(worker.name()), failed.getCause().getMessage());
                assertEquals(0, worker.activeCount(), "settled once");
            }
            assertEquals(List.of(4, 9), pool.runAll(List.of(Jobs.square.call(2), Jobs.square.call(3))));
        }
    }
}
