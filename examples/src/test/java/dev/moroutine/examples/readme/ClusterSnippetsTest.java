package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.isTask;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.streaming;
import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.WorkerHandle;
import dev.moroutine.cluster.Cluster;
import dev.moroutine.cluster.ClusterOptions;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's snippet about cluster workers, on a member in this JVM (on loopback). */
@Timeout(120)
class ClusterSnippetsTest {

    /** A record that crosses to the members. */
    public record Order(String id, int quantity) {}

    public static final Mo1<Order, Integer> price = mo(order -> order.quantity() * 3);
    public static final Mo1<String, Integer> stock = mo(item -> {
        IMap<String, Integer> stocks = Cluster.here().getMap("stock"); // the member's own instance
        return stocks.getOrDefault(item, 0);                          // a local read: this member owns the key
    });
    public static final StreamMo1<Integer, Integer> countUp = streaming(n -> IntStream.range(0, n).boxed());

    private static Config loopback() {
        Config config = new Config();
        config.setClusterName("readme-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        int port = 45_000 + ThreadLocalRandom.current().nextInt(500) * 20;
        config.getNetworkConfig().setPort(port).getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + port);
        return config;
    }

    @Test
    void clusterWorkers() {
        Config config = loopback();
        HazelcastInstance hazelcast = Hazelcast.newHazelcastInstance(config); // your application's member
        try {
            hazelcast.getMap("stock").put("apple", 12);
            ClusterOptions options = ClusterOptions.defaults()
                    .register(Order.class)                                      // a record crosses once registered
                    .idempotent(price)                                          // may run again if its member leaves
                    .withPoolOptions(PoolOptions.defaults()
                            .withBalancer(Cluster.byKey(task -> isTask(stock, task) ? stock.args(task).first() : null))); // by key
            try (Pool pool = Cluster.workers(hazelcast, options)) {             // one worker per member, as they come and go
                int total = pool.run(price.call(new Order("o-1", 4)));          // runs on a member, found there by its id
                int apples = pool.run(stock.call("apple"));                     // on the member that owns "apple"
                WorkerHandle owner = Cluster.ownerOf(pool, "apple");            // the same member, for assign(…)
                try (LiveStream<Integer> items = pool.run(countUp.call(1_000))) { // streamed back, with backpressure
                    long sum = items.mapToLong(Integer::longValue).sum();
                    assertEquals(499_500, sum);
                }
                assertEquals(12, total);
                assertEquals(12, apples);
                assertEquals(hazelcast.getCluster().getLocalMember(), Cluster.member(owner));
            }                                                                   // closes the pool, never the instance
            assertTrue(hazelcast.getLifecycleService().isRunning());
        } finally {
            hazelcast.getLifecycleService().terminate();
        }
    }
}
