package dev.moroutine.examples.workeraffinity;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.workeraffinity.Counter.*;
import static dev.moroutine.examples.workeraffinity.KeyAffinity.keyAffinity;

import dev.moroutine.Balancer;
import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A custom balancer that uses {@code isTask()} to route tasks by key: per-worker counters stay
 * right only when every call for a key reaches the same worker. Under round robin each key's
 * increments are split between the workers, so reading it from one worker gives a wrong total;
 * under {@link KeyAffinity#keyAffinity()} the totals are right.
 */
public final class WorkerAffinityExample {

    private static final List<String> KEYS = List.of("apple", "banana", "cherry");
    private static final int INCREMENTS = 12;

    private WorkerAffinityExample() {}

    /**
     * Counts the same increments under both balancers and reads the totals back.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        Map<String, Integer> expected = new TreeMap<>();
        for (int i = 0; i < INCREMENTS; i++) {
            expected.merge(KEYS.get(i % KEYS.size()), i + 1, Integer::sum);
        }
        System.out.println("expected totals:   " + expected);

        Map<String, Integer> roundRobin = count("roundRobin", roundRobin());
        Map<String, Integer> affinity = count("keyAffinity", keyAffinity());

        check(affinity.equals(expected) && !roundRobin.equals(expected),
                "keyAffinity totals are right; roundRobin's are not, as its counts are split");
    }

    /** Runs the increments on two workers, then reads each key's total through the balancer. */
    private static Map<String, Integer> count(String name, Balancer balancer) {
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(balancer))) {
            for (int i = 0; i < INCREMENTS; i++) {
                pool.run(increment.call(KEYS.get(i % KEYS.size()), i + 1));
            }
            Map<String, Integer> totals = new TreeMap<>();
            for (String key : KEYS) {
                totals.put(key, pool.run(read.call(key)));
            }
            System.out.println(name + ":");
            for (WorkerHandle worker : pool.workers()) {
                System.out.println("  worker " + worker.index() + " holds " + pool.run(assign(worker, snapshot.call())));
            }
            System.out.println("  totals read: " + totals);
            return totals;
        }
    }
}
