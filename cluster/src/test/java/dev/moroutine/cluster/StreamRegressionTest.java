package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Regression tests of the cluster stream: each test guards a bug that an adversarial review found (and that is fixed). */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StreamRegressionTest {

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("stream-regression");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    /**
     * A stream closed before the member has started it: the CANCEL (control executor) may run there
     * before the STREAM (task executor); the member then starts the producer, which nobody pulls or
     * cancels, and which holds the pool's only worker thread there forever.
     */
    @Test
    void aStreamClosedAsSoonAsItIsOpenedFreesTheMembersWorker() throws Exception {
        try (Pool pool = Members.pool(two.get(0), 16)) {
            WorkerHandle remote = Members.remote(pool);
            for (int i = 0; i < 300; i++) {
                pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE))).close();
                CompletableFuture<Integer> after = pool.submit(Moroutine.assign(remote, Jobs.square.call(3)));
                try {
                    assertEquals(9, after.get(20, TimeUnit.SECONDS));
                } catch (TimeoutException stuck) {
                    pool.terminate(); // a graceful close would wait for the stuck producer
                    fail("iteration " + i + ": the member's worker is still held by the producer of a stream closed at once");
                }
            }
        }
    }

    /**
     * The items emitted before an item that cannot cross come before the failure (as a failure after
     * items does): the member's answer drops the whole outbox with it.
     */
    @Test
    void itemsBeforeAnItemThatCannotCrossArriveBeforeTheFailure() {
        for (int highWaterMark : new int[] {6, 1024}) {
            for (int round = 0; round < 5; round++) {
                try (Pool pool = Members.pool(two.get(0), highWaterMark);
                        LiveStream<Object> items = pool.run(Moroutine.assign(Members.remote(pool), StreamJobs.thenUncrossable.call(5)))) {
                    Iterator<Object> it = items.iterator();
                    List<Object> got = new ArrayList<>();
                    IllegalArgumentException refused = null;
                    try {
                        while (it.hasNext()) {
                            got.add(it.next());
                        }
                    } catch (TaskFailedException failed) {
                        refused = assertInstanceOf(IllegalArgumentException.class, failed.getCause());
                    } catch (IllegalArgumentException thrown) {
                        refused = thrown;
                    }
                    assertNotNull(refused, "the stream ended without the refusal: " + got);
                    assertEquals(List.of(0, 1, 2, 3, 4), got, "high-water mark " + highWaterMark + ", round " + round
                            + "; then " + refused);
                }
            }
        }
    }

    /**
     * A member shutting down answers a stream's pull with LEFT (lost with the member) only while the
     * pool is still in its map: a pull that comes after closeAll removed it, while the member is
     * still in the cluster, is answered "pool is not open", and the caller's stream is cancelled
     * instead of failing with WorkerDiedException.
     */
    @Test
    void aStreamOfAMemberShuttingDownFailsWithWorkerDiedNotCancelled() throws Exception {
        HazelcastInstance doomed = members.start();
        try (Pool pool = Members.pool(two.get(0), 64)) {
            WorkerHandle worker = pool.workers().stream()
                    .filter(w -> Cluster.member(w).getUuid().equals(doomed.getCluster().getLocalMember().getUuid()))
                    .findFirst().orElseThrow();
            assertTrue(pool.run(Moroutine.assign(worker, StreamJobs.useBlocker.call(StreamJobs.blocker.call(), 1))).endsWith(":1"));
            Thread shutdown = null;
            try (LiveStream<Integer> items = pool.run(Moroutine.assign(worker, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < 5; i++) {
                    assertEquals(i, it.next()); // the pump now waits for the consumer: the caller's pipe is full
                }
                shutdown = Thread.ofPlatform().start(doomed::shutdown);
                assertTrue(StreamJobs.CLOSING.await(60, TimeUnit.SECONDS), "the member closes its pools");
                int next = 5;
                Throwable outcome = null;
                while (outcome == null) {
                    try {
                        if (!it.hasNext()) {
                            fail("the stream ended normally after " + next + " items");
                        }
                        assertEquals(next++, it.next());
                    } catch (RuntimeException thrown) {
                        outcome = thrown;
                    }
                }
                assertInstanceOf(TaskFailedException.class, outcome, "after " + next + " items: " + outcome);
                assertInstanceOf(WorkerDiedException.class, outcome.getCause(), outcome.toString());
            } finally {
                StreamJobs.RELEASE.countDown();
                if (shutdown != null) {
                    shutdown.join(60_000);
                }
            }
        }
    }

    /**
     * A member shut down (or terminated) mid-stream, many times, the consumer at random speeds: the
     * stream fails with WorkerDiedException after the items that came, and is counted out once.
     */
    @Test
    void membersLeavingMidStreamSettleEachStreamOnceAsLost() throws Exception {
        java.util.SplittableRandom seeds = new java.util.SplittableRandom(7);
        List<String> wrong = new ArrayList<>();
        for (int round = 0; round < 8; round++) {
            boolean graceful = round % 2 == 0;
            HazelcastInstance doomed = members.start();
            try (Pool pool = Members.pool(two.get(0), 1 + seeds.nextInt(200))) {
                WorkerHandle worker = pool.workers().stream()
                        .filter(w -> Cluster.member(w).getUuid().equals(doomed.getCluster().getLocalMember().getUuid()))
                        .findFirst().orElseThrow();
                try (LiveStream<Integer> items = pool.run(Moroutine.assign(worker, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                    Iterator<Integer> it = items.iterator();
                    int before = 1 + seeds.nextInt(500);
                    for (int i = 0; i < before; i++) {
                        assertEquals(i, it.next());
                    }
                    Thread leaving = Thread.ofPlatform().start(graceful ? doomed::shutdown : () -> doomed.getLifecycleService().terminate());
                    int next = before;
                    Throwable outcome = null;
                    while (outcome == null) {
                        try {
                            if (!it.hasNext()) {
                                outcome = new AssertionError("ended normally");
                                break;
                            }
                            assertEquals(next++, it.next());
                        } catch (RuntimeException thrown) {
                            outcome = thrown;
                        }
                    }
                    leaving.join(60_000);
                    if (!(outcome instanceof TaskFailedException && outcome.getCause() instanceof WorkerDiedException)) {
                        wrong.add("round " + round + (graceful ? " (shutdown)" : " (terminate)") + ": " + outcome);
                    }
                    assertEquals(0, worker.activeCount(), "round " + round + ": counted out once");
                }
            }
        }
        assertEquals(List.of(), wrong);
    }
}
