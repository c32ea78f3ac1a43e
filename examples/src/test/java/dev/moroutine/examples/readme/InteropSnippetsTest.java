package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.readme.Primes.isPrime;
import static dev.moroutine.examples.workeraffinity.Counter.*;
import static dev.moroutine.examples.workeraffinity.KeyAffinity.keyAffinity;
import static java.util.stream.Collectors.groupingBy;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's snippets about using pools from plain Java: {@code workerFor}, the executor view, idle dedicated workers. */
@Timeout(60)
class InteropSnippetsTest {

    @Test
    void idleTimeoutSetting() {
        Duration before = dedicatedIdleTimeout();
        try {
            setDedicatedIdleTimeout(Duration.ofMinutes(5)); // every dedicated worker, from its next idle wait
            assertEquals(Duration.ofMinutes(5), dedicatedIdleTimeout());
        } finally {
            setDedicatedIdleTimeout(before);
        }
    }

    @Test
    void executorView() throws Exception {
        try (Pool pool = workers(4)) {
            ExecutorService executor = pool.asExecutorService();
            CompletableFuture<String> hello = CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), executor);
            List<Future<Integer>> sizes = executor.invokeAll(List.of(() -> "ab".length(), () -> "abc".length()));
            executor.shutdown(); // the view only: rejects new tasks, runs accepted ones; the pool stays open
            boolean prime = pool.run(isPrime.call(97L));
            assertTrue(hello.join().contains("-worker-"));
            assertEquals(3, sizes.get(1).get());
            assertTrue(prime);
        }
    }

    @Test
    void batchesFollowTheBalancer() {
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(keyAffinity()))) {
            Map<WorkerHandle, List<String>> byWorker = Stream.of("apple", "banana", "cherry", "apple")
                    .collect(groupingBy(key -> pool.workerFor(read.call(key))));
            byWorker.forEach((worker, keys) -> pool.run(assign(worker, incrementAll.call(keys, 1)))); // a task per worker
            int apples = pool.run(read.call("apple")); // 2: the batch ran where the balancer sends "apple"
            assertEquals(2, apples);
            assertEquals(1, pool.run(read.call("banana")));
        }
    }
}
