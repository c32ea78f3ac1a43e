package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.workeraffinity.Counter.*;
import static dev.moroutine.examples.workeraffinity.KeyAffinity.keyAffinity;
import static java.util.stream.Collectors.groupingBy;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.PoolOptions;
import dev.moroutine.Runner;
import dev.moroutine.WorkerHandle;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's snippets about using pools from plain Java: {@code workerFor}, the executor view, idle dedicated workers. */
@Timeout(60)
class InteropSnippetsTest {

    @Test
    void batchesFollowTheBalancer() {
        try (Runner pool = workers(2, PoolOptions.defaults().withBalancer(keyAffinity()))) {
            Map<WorkerHandle, List<String>> byWorker = Stream.of("apple", "banana", "cherry", "apple")
                    .collect(groupingBy(key -> pool.workerFor(read.call(key))));
            byWorker.forEach((worker, keys) -> pool.run(assign(worker, incrementAll.call(keys, 1)))); // a task per worker
            int apples = pool.run(read.call("apple")); // 2: the batch ran where the balancer sends "apple"
            assertEquals(2, apples);
            assertEquals(1, pool.run(read.call("banana")));
        }
    }
}
