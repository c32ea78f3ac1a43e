package dev.moroutine;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class WorkerForTest {

    static final Mo1<String, Thread> where = mo(key -> Thread.currentThread());

    /** Places {@code where} tasks by their key, anything else round robin. */
    static Balancer byKey() {
        Balancer fallback = roundRobin();
        return (workers, task) -> isTask(where, task)
                ? workers.get(Math.floorMod(where.args(task).first().hashCode(), workers.size()))
                : fallback.select(workers, task);
    }

    @Test
    void withAKeyAffinityBalancerItIsWhereTheTaskRuns() throws Exception {
        try (Pool pool = workers(4, PoolOptions.defaults().withBalancer(byKey()))) {
            for (int i = 0; i < Stress.scaled(500); i++) {
                Task<Thread> task = where.call("key-" + i);
                WorkerHandle predicted = pool.workerFor(task);
                assertSame(predicted, pool.workerFor(task), "asking twice gives the same answer");
                assertSame(threadOf(predicted), pool.run(task), "key-" + i);
                assertSame(threadOf(predicted), pool.submit(task).get(10, TimeUnit.SECONDS), "key-" + i);
            }
        }
    }

    /** The use it is for: group a batch by worker, then run each group pinned there. */
    @Test
    void aBatchGroupedByWorkerKeepsTheAffinity() {
        try (Pool pool = workers(3, PoolOptions.defaults().withBalancer(byKey()))) {
            List<Task<Thread>> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) batch.add(where.call("user-" + (i % 17)));
            Map<WorkerHandle, List<Task<Thread>>> byWorker = batch.stream().collect(Collectors.groupingBy(pool::workerFor));

            List<CompletableFuture<Thread>> runs = new ArrayList<>();
            List<WorkerHandle> expected = new ArrayList<>();
            byWorker.forEach((worker, tasks) -> tasks.forEach(task -> {
                runs.add(pool.submit(assign(worker, task)));
                expected.add(worker);
            }));
            for (int i = 0; i < runs.size(); i++) {
                assertSame(threadOf(expected.get(i)), runs.get(i).join());
            }
            for (Task<Thread> task : batch) {
                assertSame(threadOf(pool.workerFor(task)), pool.run(task), "the balancer agrees with the grouping");
            }
        }
    }

    @Test
    void anAssignedTaskIsAnsweredWithItsWorkerWithoutAskingTheBalancer() {
        Balancer refuses = (workers, task) -> {
            throw new AssertionError("the balancer must not be asked about an assigned task");
        };
        try (Pool pool = workers(3, PoolOptions.defaults().withBalancer(refuses))) {
            for (WorkerHandle worker : pool.workers()) {
                assertSame(worker, pool.workerFor(assign(worker, where.call("x"))));
            }
        }
    }

    /** Documented: the question is a selection for a stateful balancer. */
    @Test
    void roundRobinCountsTheQuestionAsASelection() {
        try (Pool pool = workers(3)) {
            Task<Thread> task = where.call("any");
            int first = pool.workerFor(task).index();
            assertEquals((first + 1) % 3, pool.workerFor(task).index());
            assertEquals((first + 2) % 3, pool.workerFor(task).index());
            pool.run(task);
            assertEquals((first + 1) % 3, pool.workerFor(task).index(), "a dispatch takes its turn in the same cycle");
        }
    }

    @Test
    void badInputsSayWhatIsWrong() {
        try (Pool a = workers(1); Pool b = workers(1)) {
            assertEquals("task", assertThrows(NullPointerException.class, () -> a.workerFor(null)).getMessage());
            IllegalArgumentException otherPool = assertThrows(IllegalArgumentException.class,
                    () -> b.workerFor(assign(a.workers().get(0), where.call("x"))));
            assertTrue(otherPool.getMessage().contains("belongs to"), otherPool.getMessage());
        }
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer((ws, t) -> null))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.workerFor(where.call("x")));
            assertTrue(e.getMessage().contains("a balancer must return one of the handles it is given"), e.getMessage());
        }
    }

    @Test
    void itAnswersOnAClosedPool() {
        Pool pool = workers(2, PoolOptions.defaults().withBalancer(byKey()));
        Task<Thread> task = where.call("closed");
        WorkerHandle before = pool.workerFor(task);
        pool.close();
        assertSame(before, pool.workerFor(task));
    }
}
