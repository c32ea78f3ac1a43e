package dev.moroutine.examples.loadbalancing;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.loadbalancing.Jobs.burn;

import dev.moroutine.Balancer;
import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.examples.loadbalancing.Jobs.Done;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Round robin vs least busy with variable-cost tasks: every other task is 20 times heavier. Round
 * robin ignores load and places all the heavy tasks on the same worker, where the idle worker takes
 * some of those waiting; least busy sends each task to the worker with the fewest in-flight tasks,
 * so the heavy ones spread out as they arrive. The tallies say where each task ran.
 *
 * <p>The tasks arrive like requests from a client that keeps at most {@value #IN_FLIGHT} in
 * flight. A balancer places each task when it arrives, and least busy counts tasks, not their
 * cost: a batch submitted all at once would find every worker equally busy at each step.
 */
public final class LoadBalancingExample {

    private static final int TASKS = 40;
    private static final int IN_FLIGHT = 4;

    private LoadBalancingExample() {}

    /**
     * Runs the same tasks under both balancers on two workers.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        List<Integer> costs = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            costs.add(i % 2 == 0 ? 20 : 1);
        }
        System.out.printf("%d tasks on 2 workers, costs %s...%n", TASKS, costs.subList(0, 6));
        List<Done> roundRobin = runAll(costs, "roundRobin", roundRobin());
        List<Done> leastBusy = runAll(costs, "leastBusy", leastBusy());

        boolean same = true;
        for (int i = 0; i < TASKS; i++) {
            same &= roundRobin.get(i).checksum() == leastBusy.get(i).checksum();
        }
        check(roundRobin.size() == TASKS && same, "both balancers ran all " + TASKS + " tasks with the same results");
    }

    private static List<Done> runAll(List<Integer> costs, String name, Balancer balancer) {
        PoolOptions options = PoolOptions.defaults().withBalancer(balancer).withThreadNamePrefix(name);
        try (Pool pool = workers(2, options)) {
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            List<CompletableFuture<Done>> futures = new ArrayList<>();
            long start = System.nanoTime();
            for (int cost : costs) {
                inFlight.acquireUninterruptibly();
                futures.add(pool.submit(burn.call(cost)).whenComplete((done, failure) -> inFlight.release()));
            }
            List<Done> results = futures.stream().map(CompletableFuture::join).toList();
            long millis = (System.nanoTime() - start) / 1_000_000;

            Map<String, int[]> perWorker = new TreeMap<>(); // worker -> {tasks, units}
            for (int i = 0; i < results.size(); i++) {
                int[] tally = perWorker.computeIfAbsent(results.get(i).worker(), w -> new int[2]);
                tally[0]++;
                tally[1] += costs.get(i);
            }
            System.out.printf("%s: %d ms%n", name, millis);
            perWorker.forEach((worker, tally) ->
                    System.out.printf("  %s: %2d tasks, %3d units of work%n", worker, tally[0], tally[1]));
            return results;
        }
    }
}
