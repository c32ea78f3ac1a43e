package dev.moroutine.examples.workeraffinity;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.workeraffinity.Counter.*;
import static dev.moroutine.examples.workeraffinity.KeyAffinity.keyAffinity;

import dev.moroutine.Balancer;
import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A custom balancer that uses {@code isTask()} to route tasks by key: per-worker counters stay
 * right only when every call for a key reaches the same worker. Round robin promises no such thing:
 * it sends a key's increments to both workers, and an idle worker may take a task waiting at a busy
 * one, so a total read from one worker is right only by chance. Under
 * {@link KeyAffinity#keyAffinity()} each key's count lives on one worker and the totals are right.
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

        count("roundRobin (no promise)", roundRobin());
        Counted affinity = count("keyAffinity", keyAffinity());

        boolean eachKeyOnOneWorker = KEYS.stream()
                .allMatch(key -> affinity.held().stream().filter(held -> held.containsKey(key)).count() == 1);
        check(affinity.totals().equals(expected) && eachKeyOnOneWorker,
                "keyAffinity: each key's count lives on one worker, and the totals read are right");
    }

    /** What a run left: the totals read through the balancer, and what each worker holds. */
    private record Counted(Map<String, Integer> totals, List<Map<String, Integer>> held) {}

    /** Runs the increments on two workers, then reads each key's total through the balancer. */
    private static Counted count(String name, Balancer balancer) {
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(balancer))) {
            for (int i = 0; i < INCREMENTS; i++) {
                pool.run(increment.call(KEYS.get(i % KEYS.size()), i + 1));
            }
            Map<String, Integer> totals = new TreeMap<>();
            for (String key : KEYS) {
                totals.put(key, pool.run(read.call(key)));
            }
            System.out.println(name + ":");
            List<Map<String, Integer>> held = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {
                held.add(pool.run(assign(worker, snapshot.call())));
                System.out.println("  worker " + worker.index() + " holds " + held.getLast());
            }
            System.out.println("  totals read: " + totals);
            return new Counted(totals, held);
        }
    }
}
