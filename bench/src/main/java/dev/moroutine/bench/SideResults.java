package dev.moroutine.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Figures that a benchmark computes besides its score (the fan-out's share per consumer), carried
 * into JMH's results: the benchmark {@link #put}s them at the end of an iteration (in a
 * {@code @TearDown(Level.Iteration)} method, which runs before the profilers' {@code afterIteration}),
 * and this profiler, loaded by JMH in the same forked JVM, turns them into secondary results of
 * that iteration, averaged over iterations.
 */
public final class SideResults implements InternalProfiler {

    private static final Map<String, Double> PENDING = new ConcurrentHashMap<>();

    /** Made by JMH, by reflection. */
    public SideResults() {}

    /**
     * Records a figure of the current iteration.
     *
     * @param label the secondary result's label
     * @param value its value for this iteration
     */
    public static void put(String label, double value) {
        PENDING.put(label, value);
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        PENDING.clear();
    }

    @Override
    public Collection<? extends Result<?>> afterIteration(
            BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
        List<ScalarResult> results = new ArrayList<>();
        PENDING.forEach((label, value) -> results.add(new ScalarResult(label, value, "", AggregationPolicy.AVG)));
        PENDING.clear();
        return results;
    }

    @Override
    public String getDescription() {
        return "Figures a benchmark computes besides its score, such as the fan-out's share per consumer";
    }
}
