package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.readme.Numbers.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.AbortController;
import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BinaryOperator;
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
        try (Pool pool = workers(2, PoolOptions.defaults().withHighWaterMark(64))) {
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
        try (Pool pool = workers(4)) {
            List<Task<Integer>> consumers = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {
                consumers.add(assign(worker, sum.call(channel))); // each item reaches one consumer
            }
            int total = pool.runAll(consumers).stream().mapToInt(Integer::intValue).sum();
            assertEquals(49_995_000, total);
        }
    }

    @Test
    void zipTwoRuns() throws InterruptedException {
        try (Pool pool = workers(2)) { // two runs consumed together: a worker each
            List<WorkerHandle> workers = pool.workers();
            Flow.Publisher<Integer> left = assign(workers.get(0), countUp.call(100)).publisher();
            Flow.Publisher<Integer> right = assign(workers.get(1), countUp.call(100)).publisher();
            // zip them (Flux.zip, Flowable.zip, …) and consume the pairs before the pool closes
            assertEquals(IntStream.range(0, 100).map(i -> 2 * i).boxed().toList(), zip(left, right, Integer::sum));
        }
    }

    /** A zip without a reactive library: one item from each side, then the next. */
    private static <T> List<T> zip(Flow.Publisher<T> left, Flow.Publisher<T> right, BinaryOperator<T> combine)
            throws InterruptedException {
        Side<T> a = new Side<>(left);
        Side<T> b = new Side<>(right);
        List<T> pairs = new ArrayList<>();
        for (Optional<T> x = a.next(), y = b.next(); x.isPresent() && y.isPresent(); x = a.next(), y = b.next()) {
            pairs.add(combine.apply(x.get(), y.get()));
        }
        return pairs;
    }

    /** One side of a zip: asks for one item at a time; empty at the end, and a failure fails the test. */
    private static final class Side<T> implements Flow.Subscriber<T> {
        private final BlockingQueue<Optional<T>> signals = new LinkedBlockingQueue<>();
        private final CompletableFuture<Flow.Subscription> subscription = new CompletableFuture<>();
        private volatile Throwable failure;

        Side(Flow.Publisher<T> publisher) {
            publisher.subscribe(this);
        }

        Optional<T> next() throws InterruptedException {
            subscription.join().request(1);
            Optional<T> signal = signals.poll(10, TimeUnit.SECONDS);
            assertNotNull(signal, "no item or end within 10 s");
            if (failure != null) {
                throw new AssertionError("the publisher failed", failure);
            }
            return signal;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription.complete(s);
        }

        @Override
        public void onNext(T item) {
            signals.add(Optional.of(item));
        }

        @Override
        public void onError(Throwable t) {
            failure = t;
            signals.add(Optional.empty());
        }

        @Override
        public void onComplete() {
            signals.add(Optional.empty());
        }
    }

    @Test
    void boundedMap() {
        try (Pool pool = workers()) {
            var tasks = IntStream.range(0, 100).mapToObj(slowSquare::call).iterator(); // pulled lazily
            try (LiveStream<Integer> squares = map(pool, tasks, 4)) { // at most 4 in flight
                squares.forEach(System.out::println); // in completion order
            }
        }
    }

    @Test
    void boundedMapStoppedBySignal() {
        var controller = new AbortController();
        try (Pool pool = workers()) {
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
