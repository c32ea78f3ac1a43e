package dev.moroutine.examples;

import dev.moroutine.examples.atomics.AtomicsExample;
import dev.moroutine.examples.boundedmap.BoundedMapExample;
import dev.moroutine.examples.channelfanout.ChannelFanoutExample;
import dev.moroutine.examples.isolation.IsolationExample;
import dev.moroutine.examples.cluster.ClusterExample;
import dev.moroutine.examples.loadbalancing.LoadBalancingExample;
import dev.moroutine.examples.multimodule.MultiModuleExample;
import dev.moroutine.examples.nonblocking.NonBlockingExample;
import dev.moroutine.examples.parallelbatch.ParallelBatchExample;
import dev.moroutine.examples.pipeline.PipelineExample;
import dev.moroutine.examples.primes.PrimesExample;
import dev.moroutine.examples.serve.ServeExample;
import dev.moroutine.examples.sharedstate.SharedStateExample;
import dev.moroutine.examples.sqlite.SqliteExample;
import dev.moroutine.examples.workeraffinity.WorkerAffinityExample;
import java.util.List;

/**
 * Runs every example in order, each under a {@code === name ===} header, and exits non-zero if
 * one of them failed its check or threw. From the repository root:
 *
 * <pre>mvn -q -Ptour -DskipTests package</pre>
 */
public final class Tour {

    private Tour() {}

    /** An example's {@code main}. */
    @FunctionalInterface
    interface Main {
        void run(String[] args) throws Exception;
    }

    /**
     * One example of the tour.
     *
     * @param name the example's name, as in its package
     * @param main its {@code main} method
     */
    record Example(String name, Main main) {}

    /** The examples, in the order the tour runs them. */
    static final List<Example> EXAMPLES = List.of(
            new Example("primes", PrimesExample::main),
            new Example("nonblocking", NonBlockingExample::main),
            new Example("parallelbatch", ParallelBatchExample::main),
            new Example("multimodule", MultiModuleExample::main),
            new Example("sqlite", SqliteExample::main),
            new Example("loadbalancing", LoadBalancingExample::main),
            new Example("workeraffinity", WorkerAffinityExample::main),
            new Example("atomics", AtomicsExample::main),
            new Example("sharedstate", SharedStateExample::main),
            new Example("pipeline", PipelineExample::main),
            new Example("channelfanout", ChannelFanoutExample::main),
            new Example("boundedmap", BoundedMapExample::main),
            new Example("serve", ServeExample::main),
            new Example("isolation", IsolationExample::main),
            new Example("cluster", ClusterExample::main));

    /**
     * Runs the tour.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        if (run() > 0) {
            System.exit(1);
        }
    }

    /**
     * Runs every example, printing a header before each and a summary at the end.
     *
     * @return how many examples failed
     */
    static int run() {
        long start = System.nanoTime();
        int failed = 0;
        for (Example example : EXAMPLES) {
            System.out.println("=== " + example.name() + " ===");
            try {
                example.main().run(new String[0]);
            } catch (Exception | AssertionError e) {
                failed++;
                System.out.println("FAILED: " + example.name());
                e.printStackTrace(System.out);
            }
            System.out.println();
        }
        System.out.printf("tour: %d of %d examples passed in %.1f s%n",
                EXAMPLES.size() - failed, EXAMPLES.size(), (System.nanoTime() - start) / 1e9);
        return failed;
    }
}
