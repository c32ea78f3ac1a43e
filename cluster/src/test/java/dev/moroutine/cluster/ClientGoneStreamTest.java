package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.stream.LiveStream;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A client that goes away mid-stream: the member's producer stops. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientGoneStreamTest {

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("client-gone-stream");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    @Test
    void aClientThatShutsDownMidStreamStopsTheMembersProducer() {
        HazelcastInstance client = members.client();
        Pool pool = Cluster.workers(client, ClusterOptions.defaults().withPoolOptions(PoolOptions.defaults().withHighWaterMark(16)));
        LiveStream<Integer> items = pool.run(Moroutine.assign(pool.workers().get(0), StreamJobs.endless.call("client-gone")));
        Iterator<Integer> it = items.iterator();
        for (int i = 0; i < 100; i++) {
            assertEquals(i, it.next());
        }
        client.shutdown(); // without closing the stream or the pool: the client is gone
        CountDownLatch stopped = StreamJobs.STOPPED.computeIfAbsent("client-gone", k -> new CountDownLatch(1));
        try {
            assertTrue(stopped.await(30, TimeUnit.SECONDS), "the member's producer still runs 30 s after its client left");
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            fail(interrupted);
        }
    }
}
