package dev.moroutine.bench;

import java.time.Duration;
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
import org.openjdk.jmh.runner.IterationType;

/**
 * Measures the {@linkplain CoreToCore core-to-core pass} in each forked JVM, just before its first
 * measurement iteration ({@value #BEFORE}) and just after its last ({@value #AFTER}), while the
 * benchmark's own threads are idle. On a virtual machine the pass changes several-fold with where
 * the hypervisor runs the virtual CPUs, and a hand-off's throughput with it, so {@code RESULTS.md}
 * gives each JVM's pass beside its scores: two systems are compared fairly only in JVMs that had the
 * same machine. A measurement the machine was too busy for (5 s) is left out; each takes about
 * 46 ms when a pass costs 230 ns.
 *
 * <p>JMH makes one instance per fork and calls it from one thread.
 */
public final class CoreToCoreProfiler implements InternalProfiler {

    /** The label of the pass measured before the first measurement iteration, in ns. */
    public static final String BEFORE = "c2c.before";
    /** The label of the pass measured after the last measurement iteration, in ns. */
    public static final String AFTER = "c2c.after";

    private static final Duration LIMIT = Duration.ofSeconds(5);

    private int measured;
    private double before = Double.NaN;

    /** Made by JMH, by reflection. */
    public CoreToCoreProfiler() {}

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        if (iterationParams.getType() == IterationType.MEASUREMENT && measured == 0) {
            before = measure();
        }
    }

    @Override
    public Collection<? extends Result<?>> afterIteration(
            BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
        if (iterationParams.getType() != IterationType.MEASUREMENT || ++measured < iterationParams.getCount()) {
            return List.of();
        }
        // Reported once per fork, with the last iteration; JMH's average over the iterations would count the others as
        // zeros, so the fork's figure is the maximum, which is this one.
        double after = measure();
        List<ScalarResult> passes = new ArrayList<>();
        if (!Double.isNaN(before)) {
            passes.add(new ScalarResult(BEFORE, before, "ns", AggregationPolicy.MAX));
        }
        if (!Double.isNaN(after)) {
            passes.add(new ScalarResult(AFTER, after, "ns", AggregationPolicy.MAX));
        }
        return passes;
    }

    private static double measure() {
        try {
            return CoreToCore.oneWayNanos(CoreToCore.FORK_RUNS, CoreToCore.FORK_ROUND_TRIPS, LIMIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }

    @Override
    public String getDescription() {
        return "The core-to-core pass (one way, ns) before the first and after the last measurement iteration of each fork";
    }
}
