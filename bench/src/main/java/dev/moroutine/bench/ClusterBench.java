package dev.moroutine.bench;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.streaming;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IExecutorService;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializable;
import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.cluster.Cluster;
import dev.moroutine.cluster.ClusterOptions;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The cluster shapes: three Hazelcast members in this JVM on loopback, a moroutine cluster pool
 * ({@link Cluster#workers}) beside Hazelcast's own {@link IExecutorService} submitting an equivalent
 * {@link Callable} (a {@link DataSerializable} carrying an int, returning it) to the same members,
 * round robin. Shapes, alternated round by round so both see the same machine:
 * <ul>
 *   <li><b>pipelined noop</b>: {@link #TASKS} tasks, {@link #IN_FLIGHT} outstanding (a ring of futures), tasks/s;</li>
 *   <li><b>stream</b>: {@link #ITEMS} items of a streaming moroutine from another member, items/s; beside it, the
 *       same items fetched by Hazelcast callables returning lists of {@link #CHUNK}, one at a time.</li>
 * </ul>
 * Prints the median of the rounds and the ratio to Hazelcast's own. The quick comparison
 * ({@link BenchMain}) runs it in a JVM of its own ({@link ClusterResults}), which reads the rounds'
 * figures from the file {@code --out} names. Alone, from the repository root:
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=ClusterBench
 * </pre>
 * Arguments: {@code --rounds=} (default 7), {@code --warmups=} (default 2), {@code --tasks=} (pipelined
 * tasks per round, default {@value #TASKS}), {@code --out=} (a properties file for the rounds' figures).
 */
public final class ClusterBench {

    static final int TASKS = 20_000;
    static final int IN_FLIGHT = 256;
    static final int ITEMS = 100_000;
    static final int CHUNK = 1024;

    /** The noop, as a moroutine. */
    public static final Mo1<Integer, Integer> echo = mo(i -> i);

    /** The stream, as a moroutine. */
    public static final StreamMo1<Integer, Integer> count = streaming(n -> IntStream.range(0, n).boxed());

    private ClusterBench() {}

    /** Hazelcast's own: the same noop as a callable. */
    public static final class RawEcho implements Callable<Integer>, DataSerializable {
        private int value;

        /** For Hazelcast. */
        public RawEcho() {}

        RawEcho(int value) {
            this.value = value;
        }

        @Override
        public Integer call() {
            return value;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeInt(value);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            value = in.readInt();
        }
    }

    /** Hazelcast's own: one chunk of the stream. */
    public static final class RawChunk implements Callable<ArrayList<Integer>>, DataSerializable {
        private int from;
        private int to;

        /** For Hazelcast. */
        public RawChunk() {}

        RawChunk(int from, int to) {
            this.from = from;
            this.to = to;
        }

        @Override
        public ArrayList<Integer> call() {
            ArrayList<Integer> items = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                items.add(i);
            }
            return items;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeInt(from);
            out.writeInt(to);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            from = in.readInt();
            to = in.readInt();
        }
    }

    /**
     * Runs the shapes.
     *
     * @param args {@code --rounds=}, {@code --warmups=}, {@code --tasks=}, {@code --out=}
     * @throws Exception if one fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = 7;
        int warmups = 2;
        int tasks = TASKS;
        String out = null;
        for (String arg : args) {
            String value = arg.substring(arg.indexOf('=') + 1);
            if (arg.startsWith("--rounds=")) {
                rounds = Integer.parseInt(value);
            } else if (arg.startsWith("--warmups=")) {
                warmups = Integer.parseInt(value);
            } else if (arg.startsWith("--tasks=")) {
                tasks = Integer.parseInt(value);
            } else if (arg.startsWith("--out=")) {
                out = value;
            } else {
                throw new IllegalArgumentException("unknown argument \"" + arg + "\"; expected --rounds=, --warmups=, --tasks= or --out=");
            }
        }
        long started = System.nanoTime();
        System.setProperty("hazelcast.logging.type", "none");
        List<HazelcastInstance> members = new ArrayList<>();
        Config config = config();
        for (int i = 0; i < 3; i++) {
            members.add(Hazelcast.newHazelcastInstance(config));
        }
        for (HazelcastInstance member : members) {
            member.getPartitionService().forceLocalMemberToBeSafe(60, TimeUnit.SECONDS);
        }
        HazelcastInstance caller = members.get(0);
        IExecutorService raw = caller.getExecutorService("raw");
        Member[] targets = caller.getCluster().getMembers().toArray(Member[]::new);
        Member remote = Arrays.stream(targets).filter(m -> !m.localMember()).findFirst().orElseThrow();
        double[][] results = new double[5][rounds];
        // A high-water mark of a chunk: the producer is never more items ahead of the consumer than Hazelcast's own
        // callables, one chunk at a time. Twice that: a pull carries a chunk while the consumer takes the last one.
        try (Pool pool = Cluster.workers(caller, ClusterOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withHighWaterMark(CHUNK)));
                Pool wide = Cluster.workers(caller, ClusterOptions.defaults()
                        .withPoolOptions(PoolOptions.defaults().withHighWaterMark(2 * CHUNK)))) {
            var remoteWorker = remoteOf(pool);
            var wideRemote = remoteOf(wide);
            for (int warm = 0; warm < warmups; warm++) { // JIT and Hazelcast's own warm-up
                pipelinedMoroutine(pool, tasks);
                pipelinedRaw(raw, targets, tasks);
                streamMoroutine(pool, remoteWorker);
                streamRaw(raw, remote);
                streamMoroutine(wide, wideRemote);
            }
            for (int r = 0; r < rounds; r++) {
                results[0][r] = pipelinedMoroutine(pool, tasks);
                results[1][r] = pipelinedRaw(raw, targets, tasks);
                results[2][r] = streamMoroutine(pool, remoteWorker);
                results[3][r] = streamRaw(raw, remote);
                results[4][r] = streamMoroutine(wide, wideRemote);
            }
        } finally {
            for (HazelcastInstance member : members) {
                member.getLifecycleService().terminate();
            }
        }
        double noop = median(results[0]);
        double noopRaw = median(results[1]);
        double stream = median(results[2]);
        double streamRaw = median(results[3]);
        System.out.printf(Locale.ROOT, "cluster, 3 members in one JVM, %d rounds (median), %d cores%n", rounds,
                Runtime.getRuntime().availableProcessors());
        System.out.printf(Locale.ROOT, "pipelined noop (%d in flight): moroutine %,.0f tasks/s, IExecutorService %,.0f tasks/s,"
                + " raw/moroutine %.2fx%n", IN_FLIGHT, noop, noopRaw, noopRaw / noop);
        System.out.printf(Locale.ROOT, "stream (%,d items): moroutine %,.0f items/s, IExecutorService chunks of %d %,.0f items/s,"
                + " raw/moroutine %.2fx; moroutine at highWaterMark %d %,.0f items/s%n", ITEMS, stream, CHUNK, streamRaw,
                streamRaw / stream, 2 * CHUNK, median(results[4]));
        if (out != null) {
            ClusterResults.write(Path.of(out), results, tasks, (System.nanoTime() - started) / 1e9);
        }
        System.exit(0);
    }

    private static Config config() {
        Config config = new Config();
        config.setClusterName("moroutine-bench-" + ProcessHandle.current().pid());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        int base = 30_000 + ThreadLocalRandom.current().nextInt(1_000) * 20;
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(base).setPortAutoIncrement(true).setPortCount(20);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        network.getJoin().getMulticastConfig().setEnabled(false);
        network.getJoin().getAutoDetectionConfig().setEnabled(false);
        for (int port = base; port < base + 4; port++) {
            network.getJoin().getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + port);
        }
        return config;
    }

    private static dev.moroutine.WorkerHandle remoteOf(Pool pool) {
        return pool.workers().stream().filter(w -> !Cluster.member(w).localMember()).findFirst().orElseThrow();
    }

    private static double pipelinedMoroutine(Pool pool, int tasks) throws Exception {
        Future<?>[] ring = new Future<?>[IN_FLIGHT];
        long start = System.nanoTime();
        for (int i = 0; i < tasks; i++) {
            int slot = i % IN_FLIGHT;
            if (ring[slot] != null) {
                ring[slot].get();
            }
            ring[slot] = pool.submit(echo.call(i));
        }
        for (Future<?> future : ring) {
            if (future != null) {
                future.get();
            }
        }
        return tasks * 1e9 / (System.nanoTime() - start);
    }

    private static double pipelinedRaw(IExecutorService raw, Member[] targets, int tasks) throws Exception {
        Future<?>[] ring = new Future<?>[IN_FLIGHT];
        long start = System.nanoTime();
        for (int i = 0; i < tasks; i++) {
            int slot = i % IN_FLIGHT;
            if (ring[slot] != null) {
                ring[slot].get();
            }
            ring[slot] = raw.submitToMember(new RawEcho(i), targets[i % targets.length]);
        }
        for (Future<?> future : ring) {
            if (future != null) {
                future.get();
            }
        }
        return tasks * 1e9 / (System.nanoTime() - start);
    }

    private static double streamMoroutine(Pool pool, dev.moroutine.WorkerHandle remote) {
        long start = System.nanoTime();
        long sum = 0;
        try (LiveStream<Integer> items = pool.run(dev.moroutine.Moroutine.assign(remote, count.call(ITEMS)))) {
            for (Integer item : (Iterable<Integer>) items::iterator) {
                sum += item;
            }
        }
        check(sum);
        return ITEMS * 1e9 / (System.nanoTime() - start);
    }

    private static double streamRaw(IExecutorService raw, Member remote) throws Exception {
        long start = System.nanoTime();
        long sum = 0;
        for (int from = 0; from < ITEMS; from += CHUNK) {
            for (Integer item : raw.submitToMember(new RawChunk(from, Math.min(ITEMS, from + CHUNK)), remote).get()) {
                sum += item;
            }
        }
        check(sum);
        return ITEMS * 1e9 / (System.nanoTime() - start);
    }

    private static void check(long sum) {
        if (sum != (long) ITEMS * (ITEMS - 1) / 2) {
            throw new IllegalStateException("the stream's items do not add up: " + sum);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
