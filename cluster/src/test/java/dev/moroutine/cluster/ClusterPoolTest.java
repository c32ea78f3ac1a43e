package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.shared.Int64Atomic;
import dev.moroutine.shared.Shared;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.Streaming;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Three members on loopback, shared by the tests of this class: what a cluster pool does when nobody leaves. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterPoolTest {

    private static Members members;
    private static List<HazelcastInstance> three;

    @BeforeAll
    static void startMembers() {
        members = new Members("pool-test");
        three = members.start(3);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    @Test
    void oneWorkerPerMemberRunsTasksByTheirId() {
        try (Pool pool = Cluster.workers(three.get(0))) {
            assertEquals(3, pool.workers().size());
            Set<String> seen = new HashSet<>();
            for (WorkerHandle worker : pool.workers()) {
                seen.add(Cluster.member(worker).getUuid().toString());
                assertEquals(Cluster.member(worker).getUuid(), memberNamed(pool.run(Moroutine.assign(worker, Jobs.whereAmI.call())))
                        .getCluster().getLocalMember().getUuid());
            }
            assertEquals(3, seen.size());
            assertEquals(49, pool.run(Jobs.square.call(7)));
            assertEquals(64, pool.submit(Jobs.square.call(8)).join());
            assertEquals(List.of(1, 4, 9), pool.runAll(List.of(Jobs.square.call(1), Jobs.square.call(2), Jobs.square.call(3))));
            List<Task<Integer>> tasks = IntStream.range(0, 100).mapToObj(Jobs.square::call).toList();
            try (LiveStream<Integer> mapped = Streaming.map(pool, tasks, 8)) {
                assertEquals(IntStream.range(0, 100).map(i -> i * i).sum(), mapped.mapToInt(Integer::intValue).sum());
            }
        }
        assertTrue(three.get(0).getLifecycleService().isRunning(), "closing the pool leaves the instance running");
    }

    private static HazelcastInstance memberNamed(String name) {
        return three.stream().filter(m -> m.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void roundRobinAndLeastBusySpreadTasksOverEveryMember() {
        for (var balancer : List.of(Moroutine.roundRobin(), Moroutine.leastBusy())) {
            try (Pool pool = Cluster.workers(three.get(1), ClusterOptions.defaults()
                    .withPoolOptions(PoolOptions.defaults().withBalancer(balancer)))) {
                List<CompletableFuture<String>> futures = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    futures.add(pool.submit(Jobs.whereAmI.call()));
                }
                Map<String, Integer> perMember = new HashMap<>();
                for (CompletableFuture<String> future : futures) {
                    perMember.merge(future.join(), 1, Integer::sum);
                }
                assertEquals(3, perMember.size(), balancer + ": " + perMember);
            }
        }
    }

    @Test
    void failuresCrossBackWithTheirMessage() {
        try (Pool pool = Cluster.workers(three.get(0))) {
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> pool.run(Jobs.fails.call(3)));
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            assertEquals("task 3 failed on purpose", failed.getCause().getMessage());
        }
    }

    @Test
    void taskArgsAreResolvedOncePerMemberAndClosedWithThePool() {
        Jobs.RESOURCES_MADE.clear();
        Jobs.RESOURCES_CLOSED.clear();
        Task<Jobs.Resource> resource = Jobs.resource.call();
        try (Pool pool = Cluster.workers(three.get(0), ClusterOptions.defaults().register(Jobs.Resource.class))) {
            List<CompletableFuture<String>> futures = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                futures.add(pool.submit(Jobs.useResource.call(resource, i)));
            }
            Set<String> ran = new HashSet<>();
            for (int i = 0; i < futures.size(); i++) {
                String answer = futures.get(i).join();
                assertTrue(answer.endsWith(":" + i), answer);
                ran.add(answer.substring(0, answer.indexOf(':')));
            }
            assertEquals(3, ran.size());
        }
        assertEquals(3, Jobs.RESOURCES_MADE.size(), Jobs.RESOURCES_MADE.toString());
        Jobs.RESOURCES_MADE.forEach((member, made) -> assertEquals(1, made.get(), member));
        Jobs.RESOURCES_MADE.forEach((member, made) -> assertEquals(1, Jobs.RESOURCES_CLOSED.get(member).get(),
                "closed on " + member + " when the pool closed"));
    }

    @Test
    void aTaskTimeoutStopsTheTaskOnItsMember() {
        try (Pool pool = Cluster.workers(three.get(0))) {
            WorkerHandle worker = pool.workers().get(1);
            TaskFailedException late = assertThrows(TaskFailedException.class,
                    () -> pool.run(Moroutine.assign(worker, Jobs.held.call("timeout")).withTimeout(java.time.Duration.ofMillis(300))));
            assertInstanceOf(java.util.concurrent.TimeoutException.class, late.getCause());
            assertEquals(4, pool.run(Moroutine.assign(worker, Jobs.square.call(2))), "the member's worker goes on");
        }
    }

    @Test
    void anUnregisteredClassIsRefusedAtTheCall() {
        try (Pool pool = Cluster.workers(three.get(0))) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> pool.run(Jobs.describe.call(new Jobs.Resource("x"))));
            assertTrue(refused.getMessage().contains("ClusterOptions.defaults().register(dev.moroutine.cluster.Jobs.Resource.class)"),
                    refused.getMessage());
        }
    }

    @Test
    void sharedMemoryIsRefusedWithWhatToUseInstead() {
        Int64Atomic counter = Shared.shared(Shared.int64Atomic);
        try (Pool pool = Cluster.workers(three.get(0))) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> pool.run(Jobs.describe.call(counter)));
            assertTrue(refused.getMessage().contains("shared memory (an Int64Atomic)"), refused.getMessage());
            assertTrue(refused.getMessage().contains("IMap entry processor"), refused.getMessage());
            assertTrue(refused.getMessage().contains("IAtomicLong"), refused.getMessage());
        }
    }

    @Test
    void keyAffinitySendsEachTaskToItsKeysPartitionOwner() {
        try (Pool pool = Cluster.workers(three.get(2), ClusterOptions.defaults().withPoolOptions(PoolOptions.defaults()
                .withBalancer(Cluster.byKey(task -> Jobs.tagged.args(task).first()))))) {
            HazelcastInstance caller = three.get(2);
            int checked = 0;
            for (int key = 0; key < 200; key++) {
                String before = owner(caller, key);
                String ranOn = pool.run(Jobs.tagged.call(key));
                String viaOwnerOf = memberNamed(pool.run(Moroutine.assign(Cluster.ownerOf(pool, key), Jobs.whereAmI.call()))).getName();
                if (!before.equals(owner(caller, key))) {
                    continue; // the partition moved meanwhile (a migration after the start): nothing to compare
                }
                assertEquals(before + "#" + key, ranOn, "key " + key);
                assertEquals(before, viaOwnerOf, "key " + key);
                checked++;
            }
            assertTrue(checked >= 150, "only " + checked + " keys had a stable owner");
        }
    }

    /** The name of the member that owns the key's partition, as Hazelcast's partition service says. */
    private static String owner(HazelcastInstance asker, int key) {
        var owner = asker.getPartitionService().getPartition(key).getOwner();
        return owner == null ? "no owner yet" : memberNamedByUuid(owner.getUuid().toString());
    }

    private static String memberNamedByUuid(String uuid) {
        return three.stream().filter(m -> m.getCluster().getLocalMember().getUuid().toString().equals(uuid)).findFirst()
                .orElseThrow().getName();
    }

    @Test
    void aHundredThousandItemStreamArrivesExactAndInOrder() {
        try (Pool pool = Cluster.workers(three.get(0))) {
            WorkerHandle remote = pool.workers().stream()
                    .filter(w -> !Cluster.member(w).localMember()).findFirst().orElseThrow();
            try (LiveStream<Integer> items = pool.run(Moroutine.assign(remote, Jobs.numbers.call(100_000)))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < 100_000; i++) {
                    assertTrue(it.hasNext(), "item " + i);
                    assertEquals(i, it.next());
                }
                assertFalse(it.hasNext());
            }
        }
    }

    @Test
    void aStreamThatFailsEndsWithItsFailureAfterItsItems() {
        try (Pool pool = Cluster.workers(three.get(0)); LiveStream<Integer> items = pool.run(Jobs.failingStream.call(5))) {
            Iterator<Integer> it = items.iterator();
            for (int i = 0; i < 5; i++) {
                assertEquals(i, it.next());
            }
            TaskFailedException failed = assertThrows(TaskFailedException.class, it::hasNext);
            assertEquals("stream broke after 5 items", failed.getCause().getMessage());
        }
    }

    @Test
    void aStreamClosedEarlyStopsItsProducer() {
        try (Pool pool = Cluster.workers(three.get(0))) {
            try (LiveStream<Integer> items = pool.run(Jobs.numbers.call(Integer.MAX_VALUE))) {
                assertEquals(List.of(0, 1, 2), items.limit(3).collect(Collectors.toList()));
            }
            assertEquals(4, pool.run(Jobs.square.call(2)), "every worker is free again");
            for (WorkerHandle worker : pool.workers()) {
                assertEquals(9, pool.run(Moroutine.assign(worker, Jobs.square.call(3))));
            }
        }
    }
}
