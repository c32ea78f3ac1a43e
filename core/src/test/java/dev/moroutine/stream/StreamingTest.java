package dev.moroutine.stream;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.AbortController;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.testing.Stress;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(120)
class StreamingTest {

    static final StreamMo1<Integer, Integer> countUp = streaming(n -> IntStream.range(0, n).boxed());
    static final StreamMo1<Integer, Integer> countUpPushing = emitting((Integer n, Emitter<Integer> out) -> {
        for (int i = 0; i < n; i++) out.emit(i);
    });
    static final StreamMo1<Stream<Integer>, Integer> twice = streaming(in -> in.map(x -> 2 * x));
    static final StreamMo1<Stream<Integer>, String> tagged = streaming(in -> in.map(x -> x + "@" + Thread.currentThread().getName()));
    static final StreamMo1<Stream<Integer>, Integer> square = streaming(in -> in.map(x -> x * x));
    static final Mo1<Iterable<Integer>, Integer> sum = mo(items -> {
        int total = 0;
        for (int x : items) total += x;
        return total;
    });
    static final Mo1<Stream<Integer>, List<Integer>> collect = mo(Stream::toList);
    static final StreamMo2<Long, Gauge, Long> counted = emitting((Long n, Gauge gauge, Emitter<Long> out) -> {
        for (long i = 0; i < n; i++) {
            out.emit(i);
            gauge.produced.incrementAndGet();
        }
    });
    static final StreamMo1<Probe, Long> endless = emitting((Probe probe, Emitter<Long> out) -> {
        probe.started.countDown();
        try {
            for (long i = 0; ; i++) out.emit(i);
        } catch (CancellationException stopped) {
            probe.sawCancellation.countDown();
            throw stopped;
        }
    });
    static final StreamMo1<Integer, Integer> failsAfter = emitting((Integer n, Emitter<Integer> out) -> {
        for (int i = 0; i < n; i++) out.emit(i);
        throw new IllegalStateException("producer broke after " + n);
    });
    /** Emits 0, 1, … {@code n - 1}, pausing at random (seeded): some pauses outlast the consumer's spin, so it parks. */
    static final StreamMo2<Long, Long, Long> jittery = emitting((Long n, Long seed, Emitter<Long> out) -> {
        SplittableRandom random = new SplittableRandom(seed);
        for (long i = 0; i < n; i++) {
            pauseAtRandom(random);
            out.emit(i);
        }
    });
    static final StreamMo0<Integer> emitsNull = emitting((Emitter<Integer> out) -> out.emit(null));
    static final StreamMo1<CountDownLatch, Integer> stuck = emitting((CountDownLatch gate, Emitter<Integer> out) -> {
        gate.await();
    });
    static final Mo2<Integer, Tracker, Integer> tracked = mo((x, tracker) -> {
        int now = tracker.inFlight.incrementAndGet();
        tracker.max.accumulateAndGet(now, Math::max);
        int spin = x % 7 * 2000;
        long sink = 0;
        for (int i = 0; i < spin; i++) sink += i;
        tracker.inFlight.decrementAndGet();
        return sink >= 0 ? x : -1;
    });

    record Gauge(AtomicLong produced) {
        Gauge() {
            this(new AtomicLong());
        }
    }

    record Probe(CountDownLatch started, CountDownLatch sawCancellation) {
        Probe() {
            this(new CountDownLatch(1), new CountDownLatch(1));
        }
    }

    record Tracker(AtomicInteger inFlight, AtomicInteger max) {
        Tracker() {
            this(new AtomicInteger(), new AtomicInteger());
        }
    }

    @Test
    void pullAndPushStylesStreamInOrderOnTheirDedicatedWorkers() {
        assertEquals(List.of(0, 1, 2, 3, 4), countUp.call(5).join().toList());
        List<Integer> seen = new ArrayList<>();
        for (int n : countUpPushing.call(5).join()) seen.add(n);
        assertEquals(List.of(0, 1, 2, 3, 4), seen);
        assertEquals(List.of(), countUp.call(0).join().toList());
    }

    @Test
    void aMillionItemsArriveInExactSequence() {
        int total = Stress.scaled(1_000_000);
        try (LiveStream<Integer> items = countUpPushing.call(total).join()) {
            int expected = 0;
            for (int n : items) {
                if (n != expected) fail("item " + expected + " arrived as " + n);
                expected++;
            }
            assertEquals(total, expected);
        }
        try (Pool pool = workers(2); LiveStream<Integer> items = pool.run(countUp.call(total))) {
            assertEquals((long) total * (total - 1) / 2, items.mapToLong(Integer::longValue).sum());
        }
    }

    /** The producer is never more than highWaterMark items ahead of a slow consumer. */
    @ParameterizedTest(name = "highWaterMark {0}")
    @ValueSource(ints = {1, 4, 16, 100})
    void backpressureBoundsTheGapToTheHighWaterMark(int highWaterMark) {
        Gauge gauge = new Gauge();
        long peak = 0;
        long consumed = 0;
        try (LiveStream<Long> items = counted.call(5_000L, gauge).withHighWaterMark(highWaterMark).join()) {
            for (long ignored : items) {
                consumed++;
                peak = Math.max(peak, gauge.produced().get() - consumed);
                busyWork();
            }
        }
        assertEquals(5_000, consumed);
        assertTrue(peak <= highWaterMark, "producer ran " + peak + " items ahead with highWaterMark " + highWaterMark);
        assertTrue(peak >= Math.min(highWaterMark, 4) - 1, "the producer should fill the window: peak " + peak);
    }

    @Test
    void thePoolsHighWaterMarkAppliesUnlessTheTaskSetsItsOwn() {
        try (Pool pool = workers(1, PoolOptions.defaults().withHighWaterMark(3))) {
            Gauge gauge = new Gauge();
            long consumed = 0;
            long peak = 0;
            try (LiveStream<Long> items = pool.run(counted.call(2_000L, gauge))) {
                for (long ignored : items) {
                    consumed++;
                    peak = Math.max(peak, gauge.produced().get() - consumed);
                    busyWork();
                }
            }
            assertTrue(peak <= 3, "peak " + peak);
        }
    }

    @Test
    void closingEarlyStopsTheProducerAndFreesItsWorker() throws Exception {
        Probe probe = new Probe();
        try (LiveStream<Long> items = endless.call(probe).join()) {
            Iterator<Long> it = items.iterator();
            for (long i = 0; i < 100; i++) assertEquals(i, it.next());
        }
        assertTrue(probe.sawCancellation().await(10, TimeUnit.SECONDS), "the producer saw the cancellation");

        Probe second = new Probe();
        try (LiveStream<Long> items = endless.call(second).join()) {
            assertEquals(List.of(0L, 1L, 2L), items.limit(3).toList(), "the worker runs the next task");
        }
        assertTrue(second.sawCancellation().await(10, TimeUnit.SECONDS));
    }

    @Test
    void aProducersFailureArrivesAfterEveryItemItEmitted() {
        List<Integer> seen = new ArrayList<>();
        TaskFailedException e = assertThrows(TaskFailedException.class, () -> {
            try (LiveStream<Integer> items = failsAfter.call(10).join()) {
                items.forEach(seen::add);
            }
        });
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), seen);
        assertEquals("producer broke after 10", e.getCause().getMessage());
        assertEquals(List.of(0, 1), countUp.call(2).join().toList(), "its worker goes on");
    }

    @Test
    void aThreeStagePipelineRunsEachStageOnItsOwnWorker() {
        assertEquals(List.of(0, 4, 16, 36, 64), square.call(twice.call(countUp.call(5))).join().toList());
        List<String> tags = tagged.call(twice.call(countUp.call(3))).join().toList();
        assertEquals(3, tags.size());
        for (String tag : tags) {
            assertTrue(tag.endsWith("@moroutine-dev.moroutine.stream.StreamingTest#tagged"), tag);
        }
    }

    @Test
    void streamArgumentsTakeAStreamTaskOrALocalIterable() {
        assertEquals(10, sum.call(List.of(1, 2, 3, 4)).join());
        assertEquals(45, sum.call(countUp.call(10)).join());
        try (Pool pool = workers(2)) {
            assertEquals(List.of(0, 2, 4), pool.run(collect.call(twice.call(countUp.call(3)))));
            // the same stream task given twice is two runs: each consumer gets every item
            Task<Integer> a = sum.call(countUp.call(100));
            assertEquals(List.of(4950, 4950), pool.runAll(List.of(a, a)));
        }
    }

    @ParameterizedTest(name = "{0} consumers")
    @ValueSource(ints = {2, 4, 8})
    void aChannelFansEachItemOutToExactlyOneConsumer(int consumers) {
        int total = Stress.scaled(50_000);
        Channel<Integer> channel = channel(countUp.call(total));
        try (Pool pool = workers(consumers)) {
            List<Task<List<Integer>>> shares = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) shares.add(assign(worker, collect.call(channel)));
            List<List<Integer>> received = pool.runAll(shares);
            Set<Integer> union = new HashSet<>();
            int count = 0;
            // No share is promised to any consumer: one that the OS runs late may find the channel drained.
            for (List<Integer> share : received) {
                for (int i = 1; i < share.size(); i++) {
                    assertTrue(share.get(i - 1) < share.get(i), "each consumer sees source order");
                }
                union.addAll(share);
                count += share.size();
            }
            assertEquals(total, count, "no duplicates");
            assertEquals(total, union.size(), "no gaps");
        }
        IllegalStateException ended = assertThrows(IllegalStateException.class, channel::join);
        assertTrue(ended.getMessage().contains("has ended"), ended.getMessage());
    }

    @Test
    void aChannelOverALocalIterableWorksToo() {
        Channel<Integer> channel = channel(List.of(1, 2, 3, 4, 5, 6), 1);
        try (Pool pool = workers(2)) {
            List<List<Integer>> shares = pool.runAll(List.of(collect.call(channel), collect.call(channel)));
            assertEquals(6, shares.get(0).size() + shares.get(1).size());
        }
    }

    @Test
    void mapKeepsConcurrencyBoundedAndYieldsEveryResult() {
        Tracker tracker = new Tracker();
        int tasks = 2_000;
        try (Pool pool = workers(4)) {
            Iterator<Task<Integer>> source = IntStream.range(0, tasks).mapToObj(i -> tracked.call(i, tracker)).iterator();
            Set<Integer> results = new HashSet<>();
            try (LiveStream<Integer> mapped = map(pool, source, 3)) {
                for (int r : mapped) assertTrue(results.add(r), "duplicate " + r);
            }
            assertEquals(tasks, results.size());
            assertTrue(tracker.max().get() <= 3, "max in flight " + tracker.max().get());
        }
    }

    @Test
    void mapPullsAnEndlessSourceLazilyAndStopsOnItsSignal() {
        Tracker tracker = new Tracker();
        AtomicLong pulled = new AtomicLong();
        var controller = new AbortController();
        try (Pool pool = workers(2)) {
            Iterator<Task<Integer>> endlessTasks = LongStream.iterate(0, i -> i + 1)
                    .mapToObj(i -> {
                        pulled.incrementAndGet();
                        return tracked.call((int) i, tracker);
                    })
                    .iterator();
            try (LiveStream<Integer> mapped = map(pool, endlessTasks, 2, controller.signal())) {
                Iterator<Integer> results = mapped.iterator();
                for (int i = 0; i < 50; i++) results.next();
                controller.abort("enough");
                assertFalse(results.hasNext(), "the signal ends the stream");
            }
            assertTrue(pulled.get() <= 52, "pulled only as slots freed: " + pulled.get());
        }
    }

    @Test
    void aPublisherHonoursDemandAndCancellation() throws Exception {
        List<Integer> received = new ArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        countUp.call(100).publisher().subscribe(new Flow.Subscriber<>() {
            Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(7);
            }

            @Override
            public void onNext(Integer item) {
                received.add(item);
                if (received.size() % 7 == 0) subscription.request(7);
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                done.complete(null);
            }
        });
        done.get(30, TimeUnit.SECONDS);
        assertEquals(IntStream.range(0, 100).boxed().toList(), received);

        Probe probe = new Probe();
        CountDownLatch three = new CountDownLatch(3);
        endless.call(probe).publisher().subscribe(new Flow.Subscriber<>() {
            Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Long item) {
                three.countDown();
                if (three.getCount() == 0) subscription.cancel();
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onComplete() {}
        });
        assertTrue(probe.sawCancellation().await(10, TimeUnit.SECONDS), "cancel() stops the producer");
    }

    @Test
    void terminatingThePoolEndsAConsumersWait() {
        Pool pool = workers(1);
        CountDownLatch never = new CountDownLatch(1);
        LiveStream<Integer> items = pool.run(stuck.call(never));
        Thread terminator = Thread.ofVirtual().start(pool::terminate);
        CancellationException e = assertThrows(CancellationException.class, () -> items.iterator().next());
        assertTrue(e.getMessage().contains("terminated"), e.getMessage());
        assertDoesNotThrow(() -> terminator.join());
    }

    @Test
    void badInputsSayWhatIsWrong() {
        IllegalArgumentException mark = assertThrows(IllegalArgumentException.class, () -> countUp.call(1).withHighWaterMark(0));
        assertEquals("highWaterMark must be at least 1 (items in flight before the producer blocks), was 0", mark.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PoolOptions.defaults().withHighWaterMark(-1));
        assertThrows(IllegalArgumentException.class, () -> channel(List.of(1), 0));
        try (Pool pool = workers(1)) {
            IllegalArgumentException concurrency = assertThrows(IllegalArgumentException.class,
                    () -> map(pool, List.of(countUp.call(1)), 0));
            assertTrue(concurrency.getMessage().contains("concurrency must be at least 1"), concurrency.getMessage());
        }

        LiveStream<Integer> once = countUp.call(3).join();
        once.iterator();
        IllegalStateException twice = assertThrows(IllegalStateException.class, once::toList);
        assertTrue(twice.getMessage().contains("can be consumed once"), twice.getMessage());
        once.close();

        TaskFailedException nullItem = assertThrows(TaskFailedException.class, () -> emitsNull.call().join().toList());
        assertTrue(nullItem.getCause().getMessage().contains("a null item was emitted"), nullItem.getCause().getMessage());
        assertThrows(NullPointerException.class, () -> channel((Iterable<Integer>) null));
    }

    /**
     * Both ends park often (each pauses at random, beyond the other's spin budget) and, every other
     * round, the consumer is also unparked for no reason, as a publisher's {@code request(n)} unparks its deliverer:
     * neither a lost wake nor a stale consumer thread may stall the stream or lose an item.
     */
    @ParameterizedTest(name = "virtual consumer: {0}")
    @ValueSource(booleans = {false, true})
    void aProducerAndAConsumerThatBothParkLoseNoWake(boolean virtual) throws Exception {
        long items = 2_000;
        for (int round = 0; round < Stress.scaled(20); round++) {
            int highWaterMark = 1 + round % 3;
            long seed = round;
            CompletableFuture<Long> consumed = new CompletableFuture<>();
            Runnable consume = () -> {
                SplittableRandom random = new SplittableRandom(~seed);
                long next = 0;
                try (LiveStream<Long> stream = jittery.call(items, seed).withHighWaterMark(highWaterMark).join()) {
                    for (long item : (Iterable<Long>) stream::iterator) {
                        if (item != next) throw new AssertionError("item " + item + " where " + next + " was due");
                        next++;
                        pauseAtRandom(random);
                    }
                    consumed.complete(next);
                } catch (Throwable t) {
                    consumed.completeExceptionally(t);
                }
            };
            boolean spurious = round % 2 == 0; // not always: a spurious unpark would also hide a lost one
            Thread consumer = (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(consume);
            Thread unparker = Thread.ofVirtual().start(() -> {
                while (spurious && !consumed.isDone()) {
                    LockSupport.unpark(consumer);
                    LockSupport.parkNanos(50_000);
                }
            });
            assertEquals(items, consumed.get(30, TimeUnit.SECONDS), "round " + round + ", high-water mark " + highWaterMark
                    + (spurious ? ", with spurious unparks" : ""));
            unparker.join();
        }
    }

    /** Mostly nothing; now and then a spin of up to 120 µs or a 200 µs park, both beyond a spin budget of 50 µs. */
    private static void pauseAtRandom(SplittableRandom random) {
        int dice = random.nextInt(100);
        if (dice < 3) {
            LockSupport.parkNanos(200_000);
        } else if (dice < 20) {
            long until = System.nanoTime() + random.nextInt(120_000);
            while (System.nanoTime() < until) Thread.onSpinWait();
        }
    }

    /** A consumer slower than the producer: a few microseconds of arithmetic per item. */
    private static void busyWork() {
        long x = 0;
        for (int i = 0; i < 2_000; i++) x += i ^ x;
        if (x == 42) System.out.print("");
    }
}
