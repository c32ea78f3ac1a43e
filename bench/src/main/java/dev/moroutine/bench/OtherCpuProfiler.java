package dev.moroutine.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Records how much CPU <em>others</em> took while each iteration ran, in cores:
 * <ul>
 * <li>{@value #OTHERS}: the machine's CPU load minus the benchmark JVM's own, times the number of
 *     CPUs: other processes, including other builds on a shared machine;</li>
 * <li>{@value #STEAL}: on Linux, the time the hypervisor gave this machine's CPUs to someone else
 *     ({@code steal} in {@code /proc/stat}); absent elsewhere.</li>
 * </ul>
 * On a small shared machine this is the noise floor of the run, so {@code RESULTS.md} shows it
 * beside every score.
 *
 * <p>The OS bean reports the share of CPU time used since its previous reading, so
 * {@link #beforeIteration} takes a reading and the one after the iteration covers just the iteration.
 */
public final class OtherCpuProfiler implements InternalProfiler {

    /** The label of the other-processes result. */
    public static final String OTHERS = "cpu.others";
    /** The label of the stolen-time result. */
    public static final String STEAL = "cpu.steal";

    private static final Path PROC_STAT = Path.of("/proc/stat");

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long[] statBefore;

    /** Made by JMH, by reflection. */
    public OtherCpuProfiler() {}

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        os.getCpuLoad();
        os.getProcessCpuLoad();
        statBefore = procStat();
    }

    @Override
    public Collection<? extends Result<?>> afterIteration(
            BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
        double machine = os.getCpuLoad();
        double own = os.getProcessCpuLoad();
        long[] statAfter = procStat();
        int cpus = os.getAvailableProcessors();
        List<ScalarResult> results = new ArrayList<>();
        if (machine >= 0 && own >= 0) {
            results.add(new ScalarResult(OTHERS, Math.max(0, machine - own) * cpus, "cores", AggregationPolicy.AVG));
        }
        if (statBefore != null && statAfter != null) {
            long total = statAfter[0] - statBefore[0];
            long steal = statAfter[1] - statBefore[1];
            if (total > 0) {
                results.add(new ScalarResult(STEAL, (double) steal / total * cpus, "cores", AggregationPolicy.AVG));
            }
        }
        return results;
    }

    /** The total and the steal ticks of all CPUs, from the first line of {@code /proc/stat}; null if unreadable. */
    private static long[] procStat() {
        try {
            String[] fields = Files.readAllLines(PROC_STAT).getFirst().trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal [guest guest_nice, already in user and nice]
            if (!"cpu".equals(fields[0]) || fields.length < 9) {
                return null;
            }
            long total = 0;
            for (int i = 1; i <= 8; i++) {
                total += Long.parseLong(fields[i]);
            }
            return new long[] {total, Long.parseLong(fields[8])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    @Override
    public String getDescription() {
        return "CPU used by other processes, and stolen by the hypervisor, during each iteration, in cores";
    }
}
