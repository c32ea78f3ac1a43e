package dev.moroutine.examples.cluster;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.examples.Check.check;

import com.hazelcast.config.Config;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.cluster.Cluster;
import dev.moroutine.cluster.ClusterOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Word counts on a cluster: three Hazelcast members in this JVM (on loopback), the text's lines in
 * an {@code IMap}, and one task per line sent by key affinity ({@link Cluster#byKey}) to the member
 * that owns the line, which reads it there and counts its words. Halfway through, one member is
 * stopped: its unanswered tasks run again on the others (the moroutine is marked idempotent: it only
 * reads), so no line is lost, and the totals match a count made here.
 */
public final class ClusterExample {

    /** What a line's task answers: where it ran, and the line's word counts. */
    public record LineCount(String member, HashMap<String, Integer> words) {}

    /** Counts the words of one line, on the member that owns it. */
    public static final Mo1<Integer, LineCount> countLine = mo(lineNumber -> {
        HazelcastInstance here = Cluster.here();
        IMap<Integer, String> lines = here.getMap("lines");
        HashMap<String, Integer> words = new HashMap<>();
        for (String word : lines.get(lineNumber).split(" ")) {
            words.merge(word, 1, Integer::sum);
        }
        return new LineCount(here.getName(), words);
    });

    private static final String[] WORDS = {"moroutine", "cluster", "member", "partition", "stream", "task", "key", "map"};
    private static final int LINES = 3_000;

    private ClusterExample() {}

    /**
     * Runs the example.
     *
     * @param args ignored
     * @throws Exception if it fails
     */
    public static void main(String[] args) throws Exception {
        Config config = loopback("moroutine-example-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        List<HazelcastInstance> members = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                members.add(Hazelcast.newHazelcastInstance(config));
            }
            HazelcastInstance here = members.get(0);
            HazelcastInstance stopping = members.get(2);
            IMap<Integer, String> lines = here.getMap("lines");
            Map<String, Integer> expected = new TreeMap<>();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            Map<Integer, String> text = new HashMap<>();
            for (int line = 0; line < LINES; line++) {
                StringBuilder words = new StringBuilder();
                for (int w = 0; w < 8; w++) {
                    String word = WORDS[random.nextInt(WORDS.length)];
                    words.append(w == 0 ? "" : " ").append(word);
                    expected.merge(word, 1, Integer::sum);
                }
                text.put(line, words.toString());
            }
            lines.putAll(text);

            ClusterOptions options = ClusterOptions.defaults()
                    .withPoolOptions(PoolOptions.defaults().withBalancer(Cluster.byKey(task -> countLine.args(task).first())))
                    .register(LineCount.class)
                    .idempotent(countLine);
            Map<String, Integer> totals = new TreeMap<>();
            Map<String, Integer> tasksPerMember = new TreeMap<>();
            String stoppedName = stopping.getName();
            try (Pool pool = Cluster.workers(here, options)) {
                List<CompletableFuture<LineCount>> counts = new ArrayList<>();
                for (int line = 0; line < LINES / 2; line++) {
                    counts.add(pool.submit(countLine.call(line)));
                }
                counts.getLast().join();
                // The second half is sent while the member leaves: those of its tasks that it does not
                // answer run again on the other two.
                Thread stopper = Thread.ofVirtual().start(stopping::shutdown);
                for (int line = LINES / 2; line < LINES; line++) {
                    counts.add(pool.submit(countLine.call(line)));
                }
                int answered = 0;
                for (CompletableFuture<LineCount> count : counts) {
                    LineCount result = count.get(60, TimeUnit.SECONDS);
                    answered++;
                    tasksPerMember.merge(result.member(), 1, Integer::sum);
                    result.words().forEach((word, n) -> totals.merge(word, n, Integer::sum));
                }
                stopper.join();
                System.out.println("tasks per member: " + tasksPerMember + "; stopped mid-run: " + stoppedName);
                System.out.println("word counts: " + totals);
                check(answered == LINES && totals.equals(expected) && tasksPerMember.size() == 3,
                        LINES + " lines counted on " + tasksPerMember.size() + " members, one stopped mid-run, totals as"
                        + " counted here");
            }
        } finally {
            for (HazelcastInstance member : members) {
                member.getLifecycleService().terminate();
            }
        }
    }

    /** Members of one cluster on loopback: TCP-IP join on 127.0.0.1, multicast off, ports from a random base. */
    private static Config loopback(String clusterName) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        int base = 40_000 + ThreadLocalRandom.current().nextInt(1_000) * 20;
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(base).setPortAutoIncrement(true).setPortCount(20);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        network.getJoin().getMulticastConfig().setEnabled(false);
        network.getJoin().getAutoDetectionConfig().setEnabled(false);
        network.getJoin().getTcpIpConfig().setEnabled(true);
        for (int port = base; port < base + 4; port++) {
            network.getJoin().getTcpIpConfig().addMember("127.0.0.1:" + port);
        }
        return config;
    }
}
