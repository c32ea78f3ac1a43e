package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.WorkerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Members that join, leave and die while a pool runs: every task settles exactly once, and nobody hangs. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MembershipTest {

    /** Tasks in flight at once, as a pipelining caller would keep them. */
    private static final int WINDOW = 2_000;

    private Members members;

    @BeforeEach
    void cluster() {
        members = new Members("membership-test");
    }

    @AfterEach
    void stop() {
        members.close();
    }

    /** Submits {@code count} tasks, at most {@link #WINDOW} in flight; {@code after} runs once {@code at} of them have completed. */
    private static List<CompletableFuture<String>> submit(Pool pool, int count, IntFunction<dev.moroutine.Task<String>> task, int at,
            Runnable after) throws InterruptedException {
        Semaphore window = new Semaphore(WINDOW);
        List<CompletableFuture<String>> futures = new ArrayList<>(count);
        CountDownLatch reached = new CountDownLatch(1);
        AtomicInteger completed = new AtomicInteger();
        Thread.ofVirtual().start(() -> {
            try {
                reached.await();
                after.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        for (int i = 0; i < count; i++) {
            window.acquire();
            CompletableFuture<String> future = pool.submit(task.apply(i));
            future.whenComplete((value, failure) -> {
                window.release();
                if (completed.incrementAndGet() == at) {
                    reached.countDown();
                }
            });
            futures.add(future);
        }
        if (at < 0 || at >= count) {
            reached.countDown();
        }
        return futures;
    }

    @Test
    void aHundredThousandTasksRunExactlyOnceAcrossThreeMembers() throws InterruptedException {
        List<HazelcastInstance> three = members.start(3);
        try (Pool pool = Cluster.workers(three.get(0), ClusterOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(10))))) {
            List<CompletableFuture<String>> futures = submit(pool, 100_000, Jobs.tagged::call, -1, () -> {});
            Map<String, AtomicInteger> perMember = new ConcurrentHashMap<>();
            for (int i = 0; i < futures.size(); i++) {
                String answer = futures.get(i).join();
                String[] parts = answer.split("#");
                assertEquals(Integer.toString(i), parts[1]);
                perMember.computeIfAbsent(parts[0], m -> new AtomicInteger()).incrementAndGet();
            }
            assertEquals(3, perMember.size(), perMember.toString());
            assertEquals(100_000, perMember.values().stream().mapToInt(AtomicInteger::get).sum());
        }
    }

    @Test
    void aMemberShutDownMidRunFailsItsUnansweredTasksNamingIt() throws InterruptedException {
        leavingMidRun(member -> member.shutdown(), false);
    }

    @Test
    void aMemberTerminatedMidRunFailsItsUnansweredTasksNamingIt() throws InterruptedException {
        leavingMidRun(member -> member.getLifecycleService().terminate(), false);
    }

    @Test
    void anIdempotentMoroutinesTasksRunAgainElsewhereWhenTheirMemberDies() throws InterruptedException {
        leavingMidRun(member -> member.getLifecycleService().terminate(), true);
    }

    private void leavingMidRun(Consumer<HazelcastInstance> leave, boolean idempotent) throws InterruptedException {
        List<HazelcastInstance> three = members.start(3);
        HazelcastInstance leaving = three.get(2);
        String address = leaving.getCluster().getLocalMember().getAddress().toString();
        String leavingName = leaving.getName();
        ClusterOptions options = (idempotent ? ClusterOptions.defaults().idempotent(Jobs.idempotentTagged) : ClusterOptions.defaults())
                .withPoolOptions(PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(10)));
        int count = 20_000;
        try (Pool pool = Cluster.workers(three.get(0), options)) {
            WorkerHandle doomed = pool.workers().stream().filter(w -> Cluster.member(w).getAddress().toString().equals(address))
                    .findFirst().orElseThrow();
            // One task is surely running there when it goes: it waits until the test ends.
            CompletableFuture<String> running = pool.submit(Moroutine.assign(doomed, Jobs.held.call("leaving-" + idempotent)));
            assertTrue(Jobs.STARTED.computeIfAbsent("leaving-" + idempotent, k -> new CountDownLatch(1)).await(30, TimeUnit.SECONDS));
            List<CompletableFuture<String>> futures = submit(pool, count,
                    i -> idempotent ? Jobs.idempotentTagged.call(i) : Jobs.tagged.call(i), WINDOW / 2, () -> leave.accept(leaving));
            int ok = 0;
            int failed = 0;
            for (int i = 0; i < count; i++) {
                try {
                    String answer = futures.get(i).get(60, TimeUnit.SECONDS);
                    assertEquals(Integer.toString(i), answer.split("#")[1]);
                    ok++;
                } catch (java.util.concurrent.ExecutionException e) {
                    WorkerDiedException died = assertInstanceOf(WorkerDiedException.class, e.getCause());
                    assertTrue(died.getMessage().contains(address), died.getMessage());
                    assertFalse(idempotent, "an idempotent task runs again instead: " + died.getMessage());
                    failed++;
                } catch (java.util.concurrent.TimeoutException e) {
                    fail("task " + i + " never settled");
                }
            }
            assertEquals(count, ok + failed);
            CompletionException held = assertThrows(CompletionException.class, running::join);
            assertInstanceOf(WorkerDiedException.class, held.getCause());
            assertTrue(held.getCause().getMessage().contains(address), held.getCause().getMessage());
            assertEquals(2, pool.workers().size(), "the member that left is no longer a worker");
            for (int i = 0; i < 30; i++) {
                assertNotEquals(leavingName, pool.run(Jobs.whereAmI.call()));
            }
        }
    }

    @Test
    void aMemberThatJoinsBecomesAWorker() {
        List<HazelcastInstance> two = members.start(2);
        try (Pool pool = Cluster.workers(two.get(0))) {
            assertEquals(2, pool.workers().size());
            HazelcastInstance joined = members.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (pool.workers().size() < 3) {
                assertTrue(System.nanoTime() < deadline, "the member that joined did not become a worker");
                Thread.onSpinWait();
            }
            WorkerHandle added = pool.workers().get(2);
            assertEquals(2, added.index());
            assertEquals(joined.getCluster().getLocalMember().getUuid(), Cluster.member(added).getUuid());
            assertEquals(joined.getName(), pool.run(Moroutine.assign(added, Jobs.whereAmI.call())));
        }
    }

    @Test
    void closingThePoolLetsTasksInFlightFinish() throws InterruptedException {
        List<HazelcastInstance> three = members.start(3);
        List<CompletableFuture<String>> futures;
        Pool pool = Cluster.workers(three.get(0));
        futures = submit(pool, 5_000, Jobs.tagged::call, -1, () -> {});
        pool.close();
        for (int i = 0; i < futures.size(); i++) {
            assertTrue(futures.get(i).join().endsWith("#" + i));
        }
        assertTrue(three.get(0).getLifecycleService().isRunning());
    }

    @Test
    void terminatingThePoolCancelsRunningTasksOnTheMembers() throws InterruptedException {
        List<HazelcastInstance> three = members.start(3);
        Pool pool = Cluster.workers(three.get(0), ClusterOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withShutdownTimeout(Duration.ofMillis(200))));
        List<CompletableFuture<String>> held = new ArrayList<>();
        for (WorkerHandle worker : pool.workers()) {
            String key = "close-" + worker.index();
            held.add(pool.submit(Moroutine.assign(worker, Jobs.held.call(key))));
            assertTrue(Jobs.STARTED.computeIfAbsent(key, k -> new CountDownLatch(1)).await(30, TimeUnit.SECONDS));
        }
        pool.close(); // the held tasks outlast its shutdown timeout: they are cancelled, and interrupted on the members
        for (CompletableFuture<String> future : held) {
            assertThrows(CancellationException.class, future::join);
        }
        try (Pool again = Cluster.workers(three.get(0))) {
            for (WorkerHandle worker : again.workers()) {
                assertEquals(4, again.run(Moroutine.assign(worker, Jobs.square.call(2))), "the members' threads are free");
            }
        }
    }
}
