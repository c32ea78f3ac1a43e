package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.readme.Numbers.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.AbortController;
import dev.moroutine.PoolOptions;
import dev.moroutine.Runner;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's streaming snippets (see {@link ReadmeTest}). */
@Timeout(60)
class StreamingSnippetsTest {

    @Test
    void consume() {
        try (LiveStream<Integer> numbers = countUp.call(1_000).join()) {
            for (int n : numbers) {
                if (n == 10) break; // leaving the try closes the stream: the producer stops
            }
        }
        List<Integer> all = countDown.call(3).join().toList(); // [3, 2, 1]
        List<Integer> firstFive = countUp.call(1_000_000).join().limit(5).toList(); // the producer stops here
        assertEquals(List.of(3, 2, 1), all);
        assertEquals(List.of(0, 1, 2, 3, 4), firstFive);
    }

    @Test
    void onAPool() {
        try (Runner pool = workers(2, PoolOptions.defaults().withHighWaterMark(64))) {
            try (LiveStream<Integer> numbers = pool.run(countUp.call(1_000))) {
                long total = numbers.mapToLong(Integer::longValue).sum();
                assertEquals(499_500, total);
            }
        }
    }

    @Test
    void pipeline() {
        int total = sum.call(twice.call(countUp.call(100))).join(); // three stages, three workers
        assertEquals(9_900, total);
    }

    @Test
    void fanOut() {
        Channel<Integer> channel = channel(countUp.call(10_000));
        try (Runner pool = workers(4)) {
            List<Task<Integer>> consumers = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {
                consumers.add(assign(worker, sum.call(channel))); // each item reaches one consumer
            }
            int total = pool.runAll(consumers).stream().mapToInt(Integer::intValue).sum();
            assertEquals(49_995_000, total);
        }
    }

    @Test
    void boundedMap() {
        try (Runner pool = workers()) {
            var tasks = IntStream.range(0, 100).mapToObj(slowSquare::call).iterator(); // pulled lazily
            try (LiveStream<Integer> squares = map(pool, tasks, 4)) { // at most 4 in flight
                squares.forEach(System.out::println); // in completion order
            }
        }
    }

    @Test
    void boundedMapStoppedBySignal() {
        var controller = new AbortController();
        try (Runner pool = workers()) {
            var tasks = IntStream.iterate(0, i -> i + 1).mapToObj(slowSquare::call).iterator(); // endless
            try (LiveStream<Integer> squares = map(pool, tasks, 4, controller.signal())) {
                for (int square : squares) {
                    if (square > 1_000) controller.abort("big enough"); // the loop then ends
                }
            }
        }
        boolean stopped = controller.signal().aborted(); // true: the signal ended the loop
        assertTrue(stopped);
    }
}
