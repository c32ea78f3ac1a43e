package dev.moroutine.cluster;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Members of a test cluster in this JVM, on loopback: TCP-IP join on 127.0.0.1, multicast off, a
 * cluster name of its own, ports from a random base (so parallel JVMs do not meet), no waiting
 * before the join.
 */
final class Members implements AutoCloseable {

    private static final int PORTS = 20;

    private final String clusterName;
    private final int basePort;
    private final List<HazelcastInstance> started = new ArrayList<>();
    private final List<HazelcastInstance> clients = new ArrayList<>();

    Members(String clusterName) {
        this.clusterName = clusterName + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        this.basePort = 20_000 + ThreadLocalRandom.current().nextInt(2_000) * PORTS;
    }

    /** A pool of these members, called from {@code caller}, whose streams have this high-water mark. */
    static Pool pool(HazelcastInstance caller, int highWaterMark) {
        return Cluster.workers(caller, ClusterOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withHighWaterMark(highWaterMark)));
    }

    /** A worker of the pool on another member than the caller. */
    static WorkerHandle remote(Pool pool) {
        return pool.workers().stream().filter(w -> !Cluster.member(w).localMember()).findFirst().orElseThrow();
    }

    /** Starts a member and returns it once it has joined. */
    HazelcastInstance start() {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config());
        started.add(member);
        return member;
    }

    /** Starts a client of these members, connected to them all; closed with them. */
    HazelcastInstance client() {
        ClientConfig config = new ClientConfig();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.logging.type", "jdk");
        for (int port = basePort; port < basePort + 6; port++) {
            config.getNetworkConfig().addAddress("127.0.0.1:" + port);
        }
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        clients.add(client);
        return client;
    }

    /** Starts members, and returns them once the partitions have been spread over them all (no migration under way). */
    List<HazelcastInstance> start(int count) {
        List<HazelcastInstance> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            members.add(start());
        }
        members.get(0).getMap("moroutine-test-warm-up").put(0, 0); // the first partition operation assigns the partitions
        for (HazelcastInstance member : members) {
            if (!member.getPartitionService().forceLocalMemberToBeSafe(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(member + " did not become safe within 60 s");
            }
        }
        return members;
    }

    Config config() {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.partition.count", "31");
        config.setProperty("hazelcast.logging.type", "jdk");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(basePort).setPortAutoIncrement(true).setPortCount(PORTS);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (int port = basePort; port < basePort + 6; port++) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + port);
        }
        return config;
    }

    @Override
    public void close() {
        for (HazelcastInstance client : clients) {
            client.shutdown();
        }
        for (HazelcastInstance member : started) {
            if (member.getLifecycleService().isRunning()) {
                member.getLifecycleService().terminate();
            }
        }
    }
}
