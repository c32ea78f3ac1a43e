package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A client of the cluster (HazelcastClient) as the caller: its pool's workers are the members, as from a member. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientCallerTest {

    private static Members members;
    private static List<HazelcastInstance> two;
    private static HazelcastInstance client;

    @BeforeAll
    static void startMembersAndClient() {
        members = new Members("client-test");
        two = members.start(2);
        client = members.client();
    }

    @AfterAll
    static void stopThem() {
        members.close();
    }

    @Test
    void aClientsPoolRunsTasksOnEveryMemberExactlyOnce() {
        try (Pool pool = Cluster.workers(client)) {
            assertEquals(2, pool.workers().size());
            List<Task<String>> tasks = IntStream.range(0, 2_000).mapToObj(Jobs.tagged::call).toList();
            List<String> results = pool.runAll(tasks);
            Set<String> where = new HashSet<>();
            for (int i = 0; i < results.size(); i++) {
                String[] memberAndNumber = results.get(i).split("#");
                assertEquals(Integer.toString(i), memberAndNumber[1]);
                where.add(memberAndNumber[0]);
            }
            assertEquals(Set.of(two.get(0).getName(), two.get(1).getName()), where);
        }
        assertTrue(client.getLifecycleService().isRunning(), "closing the pool leaves the client running");
    }

    @Test
    void aClientReadsAStreamFromAMemberInOrder() {
        try (Pool pool = Cluster.workers(client, ClusterOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withHighWaterMark(64)))) {
            WorkerHandle first = pool.workers().get(0);
            try (LiveStream<Integer> items = pool.run(Moroutine.assign(first, Jobs.numbers.call(20_000)))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < 20_000; i++) {
                    assertEquals(i, it.next());
                }
                assertFalse(it.hasNext());
            }
        }
    }

    @Test
    void aClientsKeyAffinityFollowsThePartitionOwner() {
        try (Pool pool = Cluster.workers(client, ClusterOptions.defaults().withPoolOptions(PoolOptions.defaults()
                .withBalancer(Cluster.byKey(task -> Jobs.tagged.args(task).first()))))) {
            int checked = 0;
            for (int key = 0; key < 100; key++) {
                var before = client.getPartitionService().getPartition(key).getOwner();
                String ranOn = pool.run(Jobs.tagged.call(key));
                if (before == null || !before.equals(client.getPartitionService().getPartition(key).getOwner())) {
                    continue; // no owner yet, or the partition moved meanwhile
                }
                String owner = two.stream().filter(m -> m.getCluster().getLocalMember().getUuid().equals(before.getUuid()))
                        .findFirst().orElseThrow().getName();
                assertEquals(owner + "#" + key, ranOn, "key " + key);
                checked++;
            }
            assertTrue(checked >= 75, "only " + checked + " keys had a stable owner");
        }
    }
}
