package dev.moroutine.cluster;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Mo1;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pool whose caller's Hazelcast instance (a client, or a member used as the caller) shuts down while
 * its tasks are in flight, without the pool or its streams being closed: every task and stream settles
 * once, with a failure that says the instance shut down and what to do, new tasks are refused, the pool
 * still closes, and no stream's pump thread is left parked (it waited for takes that never came, and
 * nothing settled the stream or woke it). Also: a pump ends when its stream is closed, or its pool
 * terminated, while it waits for takes.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CallerShutdownTest {

    /** Released after the tests: a value task that is running when its caller goes. */
    private static final CountDownLatch RELEASE = new CountDownLatch(1);
    private static final Map<String, CountDownLatch> STARTED = new ConcurrentHashMap<>();
    private static final Mo1<String, String> held = mo(key -> {
        STARTED.computeIfAbsent(key, k -> new CountDownLatch(1)).countDown();
        RELEASE.await(60, TimeUnit.SECONDS);
        return key;
    });

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("caller-shutdown");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        RELEASE.countDown();
        members.close();
    }

    private static Pool pool(HazelcastInstance caller, String name, int highWaterMark) {
        return Cluster.workers(caller, ClusterOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withHighWaterMark(highWaterMark).withThreadNamePrefix(name)));
    }

    /**
     * Waits, with a deadline, until a pump thread of the pool waits (parked for the consumer's takes); if none
     * does, the failure says what the pool's pumps do and what the stream's next take gives.
     */
    private static void awaitAPumpParked(String pool, Iterator<Integer> stream) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (Pumps.alive(Pumps.of(pool)).keySet().stream().noneMatch(t -> t.getState() == Thread.State.WAITING)) {
            if (System.nanoTime() > deadline) {
                fail("no pump of " + pool + " waits for takes within 20 s; its pumps: " + Pumps.describe(Pumps.alive(Pumps.of(pool)))
                        + "; the stream's next take: " + nextTake(stream));
            }
            Thread.yield(); // look again until the deadline: a condition, not a sleep
        }
    }

    /** What the stream's next take gives within 5 seconds, on a thread of its own: an item, a failure, or nothing yet. */
    private static String nextTake(Iterator<Integer> stream) {
        CompletableFuture<Integer> take = CompletableFuture.supplyAsync(stream::next, Thread::startVirtualThread);
        try {
            return "item " + take.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            return "failed: " + failed.getCause();
        } catch (TimeoutException waits) {
            return "nothing within 5 s";
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static void assertSaysTheCallerShutDown(Throwable failure, String caller) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IllegalStateException && t.getMessage().contains("Hazelcast instance " + caller + " shut down")) {
                assertTrue(t.getMessage().contains("Close the pool (and its streams) before you shut down the Hazelcast instance"),
                        t.getMessage());
                return;
            }
        }
        fail("not the caller's shutdown", failure);
    }

    /** Takes what the stream still holds: a bounded number of items, then the failure. */
    private static void assertTheStreamFails(Iterator<Integer> it, int from, String caller) {
        int next = from;
        try {
            for (; next < from + 10_000; next++) {
                assertEquals(next, it.next());
            }
        } catch (RuntimeException settled) {
            assertSaysTheCallerShutDown(settled, caller);
            return;
        }
        fail("the stream still gave items " + from + ".." + next + " after its caller shut down");
    }

    /** A stream and a value task in flight when the caller shuts down, on different workers (members). */
    private static void shutDownMidStream(HazelcastInstance caller, String name, WorkerHandle streamOn, WorkerHandle heldOn,
            Pool pool) throws InterruptedException {
        LiveStream<Integer> items = pool.run(Moroutine.assign(streamOn, Jobs.numbers.call(Integer.MAX_VALUE)));
        Iterator<Integer> it = items.iterator();
        for (int i = 0; i < 100; i++) {
            assertEquals(i, it.next());
        }
        awaitAPumpParked(name, it);
        CompletableFuture<String> running = pool.submit(Moroutine.assign(heldOn, held.call(name)));
        assertTrue(STARTED.computeIfAbsent(name, k -> new CountDownLatch(1)).await(30, TimeUnit.SECONDS), "the held task started");

        String instance = caller.getName(); // a client that shut down no longer says it
        caller.shutdown(); // without closing the stream or the pool: the caller is gone

        assertEquals("none", Pumps.awaitNone(Pumps.of(name)), "pump threads left after the caller shut down");
        ExecutionException failed = assertThrows(ExecutionException.class, () -> running.get(30, TimeUnit.SECONDS));
        assertSaysTheCallerShutDown(failed.getCause(), instance);
        assertTheStreamFails(it, 100, instance);
        RuntimeException refused = assertThrows(RuntimeException.class, () -> pool.run(Moroutine.assign(heldOn, held.call(name + "-later"))));
        assertTrue(refused.getMessage().contains("Hazelcast instance " + instance + " shut down"), refused.getMessage());
        pool.close(); // still closes: nothing can be sent, nothing is waited for
    }

    @Test
    void aClientThatShutsDownMidStreamSettlesItsTasksAndLeavesNoPump() throws InterruptedException {
        HazelcastInstance client = members.client();
        Pool pool = pool(client, "client-gone", 16);
        shutDownMidStream(client, "client-gone", pool.workers().get(0), pool.workers().get(1), pool);
    }

    @Test
    void aCallerMemberThatShutsDownMidStreamSettlesItsTasksAndLeavesNoPump() throws InterruptedException {
        HazelcastInstance caller = members.start();
        Pool pool = pool(caller, "member-gone", 16);
        List<WorkerHandle> others = pool.workers().stream().filter(w -> !Cluster.member(w).localMember()).toList();
        shutDownMidStream(caller, "member-gone", others.get(0), others.get(1), pool);
    }

    @Test
    void streamsClosedAfterTheirFirstItemLeaveNoPump() {
        for (int round = 0; round < 20; round++) {
            try (Pool pool = pool(two.get(0), "closed-early", 64)) {
                WorkerHandle remote = Members.remote(pool);
                for (int i = 0; i < 5; i++) {
                    try (LiveStream<Integer> open = pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                        Iterator<Integer> it = open.iterator();
                        assertEquals(0, it.next());
                        awaitAPumpParked("closed-early", it); // the pump waits for takes when the stream closes
                    }
                }
                assertEquals("none", Pumps.awaitNone(Pumps.of("closed-early")), "pump threads left in the caller, round " + round);
            }
        }
    }

    @Test
    void aPoolTerminatedMidStreamLeavesNoPump() {
        Pool pool = pool(two.get(0), "terminated", 16);
        LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.numbers.call(Integer.MAX_VALUE)));
        Iterator<Integer> it = items.iterator();
        assertEquals(0, it.next());
        awaitAPumpParked("terminated", it);
        pool.terminate();
        assertEquals("none", Pumps.awaitNone(Pumps.of("terminated")), "pump threads left after the pool was terminated");
    }
}
