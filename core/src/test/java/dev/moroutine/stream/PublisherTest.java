package dev.moroutine.stream;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.PoolOptions;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.testing.Stress;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code task.publisher()} against the Reactive Streams rules the TCK cannot pin down alone. */
@Timeout(120)
class PublisherTest {

    static final StreamMo1<Long, Long> naturals = streaming(n -> LongStream.range(0, n).boxed());
    /** Emits 0, then withholds the rest until the gate opens. */
    static final StreamMo1<CountDownLatch, Long> gated = emitting((CountDownLatch gate, Emitter<Long> out) -> {
        out.emit(0L);
        gate.await();
        for (long i = 1; ; i++) out.emit(i);
    });
    /** Emits 0, 1, 2… and counts what it emitted. */
    static final StreamMo1<AtomicLong, Long> counted = emitting((AtomicLong emitted, Emitter<Long> out) -> {
        for (long i = 0; ; i++) {
            out.emit(i);
            emitted.set(i + 1);
        }
    });

    /** A subscriber that records every signal, by name, and the thread of its terminal signal. */
    static final class Recorder implements Flow.Subscriber<Long> {
        final List<String> signals = new CopyOnWriteArrayList<>();
        final CompletableFuture<Thread> terminated = new CompletableFuture<>();
        private final Consumer<Flow.Subscription> onSubscribe;
        private final BiConsumer<Flow.Subscription, Long> onNext;
        private Flow.Subscription subscription;

        Recorder(Consumer<Flow.Subscription> onSubscribe, BiConsumer<Flow.Subscription, Long> onNext) {
            this.onSubscribe = onSubscribe;
            this.onNext = onNext;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            signals.add("onSubscribe");
            subscription = s;
            onSubscribe.accept(s);
        }

        @Override
        public void onNext(Long item) {
            signals.add("onNext " + item);
            onNext.accept(subscription, item);
        }

        @Override
        public void onError(Throwable t) {
            signals.add("onError " + t);
            terminated.complete(Thread.currentThread());
        }

        @Override
        public void onComplete() {
            signals.add("onComplete");
            terminated.complete(Thread.currentThread());
        }
    }

    /** Rule 3.9, also when the bad request comes before the delivering thread has started. */
    @ParameterizedTest(name = "request({0})")
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void aBadRequestInOnSubscribeIsSignalledOnceAsIllegalArgumentException(long n) throws Exception {
        for (int i = 0; i < Stress.scaled(20); i++) {
            Recorder recorder = new Recorder(s -> {
                s.request(n);
                s.request(n); // a second bad request is not a second onError
            }, (s, item) -> {});
            naturals.call(1_000L).publisher().subscribe(recorder);
            Thread deliverer = recorder.terminated.get(10, TimeUnit.SECONDS);
            assertTrue(deliverer.join(Duration.ofSeconds(10)), "the delivering thread ends after its terminal signal");
            assertEquals(List.of("onSubscribe", "onError java.lang.IllegalArgumentException: request(" + n
                    + "): a subscriber must request at least 1 item (Reactive Streams rule 3.9)"), recorder.signals);
        }
    }

    /**
     * Rule 3.13: the publisher side lets go of a cancelled subscriber, also when the delivering thread
     * was waiting for the producer's next item when the subscription was cancelled; and of the
     * subscription itself, so the run's stream, pipe and thread are not kept either.
     */
    @Test
    void aCancelledSubscriberBecomesUnreachable() throws Exception {
        for (int i = 0; i < Stress.scaled(10); i++) {
            CountDownLatch gate = new CountDownLatch(1);
            try {
                Subscribed subscribed = subscribeTakeOneAndCancel(gated.call(gate).publisher());
                assertTrue(collected(subscribed.subscriber(), Duration.ofSeconds(10)),
                        "a cancelled subscriber is still reachable after a GC, run " + i);
                assertTrue(collected(subscribed.subscription(), Duration.ofSeconds(10)),
                        "a cancelled subscription is still reachable after a GC, run " + i);
                assertEquals(List.of("onSubscribe", "onNext 0"), subscribed.signals());
            } finally {
                gate.countDown(); // the producer's next emit sees the cancellation
            }
        }
    }

    /** Once the subscriber is unreachable nothing can signal it: what it recorded is all it got. */
    @Test
    void nothingIsSignalledAfterCancelNotEvenABadRequestsError() throws Exception {
        for (int i = 0; i < Stress.scaled(10); i++) {
            Recorder recorder = new Recorder(s -> s.request(10), (s, item) -> {
                s.cancel();
                s.request(-1); // after cancel(): ignored (rule 3.6)
            });
            List<String> signals = recorder.signals;
            WeakReference<Recorder> subscriber = new WeakReference<>(recorder);
            naturals.call(Long.MAX_VALUE).publisher().subscribe(recorder);
            recorder = null; // only the publisher may hold it now
            assertTrue(collected(subscriber, Duration.ofSeconds(10)), "a cancelled subscriber is still reachable, run " + i);
            assertEquals(List.of("onSubscribe", "onNext 0"), signals);
        }
    }

    /** Rule 2.13: a subscriber whose onSubscribe throws does not keep the run it was given. */
    @Test
    void whenOnSubscribeThrowsTheRunIsStoppedAndFreesTheWorker() {
        Flow.Subscriber<Long> broken = new Recorder(s -> {
            s.request(1);
            throw new IllegalStateException("subscriber broke");
        }, (s, item) -> {});
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> naturals.call(Long.MAX_VALUE).publisher().subscribe(broken));
        assertEquals("subscriber broke", thrown.getMessage(), "subscribe() raises the subscriber's own failure");
        List<Long> next = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> naturals.call(3L).join().toList(),
                "the endless run given to the broken subscriber still holds the moroutine's worker");
        assertEquals(List.of(0L, 1L, 2L), next);
    }

    /**
     * A subscriber that needs two subscriptions at once (a zip): one worker runs one run at a time,
     * so each side is assigned to a worker of its own.
     */
    @Test
    void twoSubscriptionsConsumedTogetherRunOnAWorkerEach() throws Exception {
        long items = 100; // beyond the high-water mark: each producer waits for demand on its worker
        try (Pool pool = workers(2)) {
            List<WorkerHandle> workers = pool.workers();
            BlockingQueue<Long> left = new LinkedBlockingQueue<>();
            BlockingQueue<Long> right = new LinkedBlockingQueue<>();
            Flow.Subscription fromLeft = subscribe(assign(workers.get(0), naturals.call(items)).publisher(), left);
            Flow.Subscription fromRight = subscribe(assign(workers.get(1), naturals.call(items)).publisher(), right);
            for (long i = 0; i < items; i++) {
                fromLeft.request(1);
                fromRight.request(1);
                assertEquals(i, left.poll(10, TimeUnit.SECONDS), "left item " + i);
                assertEquals(i, right.poll(10, TimeUnit.SECONDS), "right item " + i);
            }
        }
    }

    /**
     * A subscription runs on the pool worker its task is assigned to, so the pool's high-water mark
     * bounds its producer, as for any stream run on that pool.
     */
    @Test
    void aSubscriptionOfATaskAssignedToAPoolWorkerKeepsThePoolsHighWaterMark() throws Exception {
        int highWaterMark = 2;
        try (Pool pool = workers(1, PoolOptions.defaults().withHighWaterMark(highWaterMark))) {
            WorkerHandle worker = pool.workers().get(0);
            AtomicLong emitted = new AtomicLong();
            Flow.Subscription subscription = subscribe(assign(worker, counted.call(emitted)).publisher(),
                    new LinkedBlockingQueue<>());
            try {
                awaitWaitingForRoom(threadOf(worker));
                // the deliverer may hold one more item, taken from the pipe before any demand
                assertTrue(emitted.get() <= highWaterMark + 1, "the producer emitted " + emitted.get()
                        + " items before it waited for room; the pool's high-water mark is " + highWaterMark);
            } finally {
                subscription.cancel();
            }
        }
    }

    /** Waits until {@code worker} is a stream producer parked for room in its pipe. */
    private static void awaitWaitingForRoom(Thread worker) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(worker.getState() == Thread.State.WAITING && Arrays.stream(worker.getStackTrace())
                .anyMatch(frame -> frame.getMethodName().equals("awaitRoom")))) {
            assertTrue(System.nanoTime() < end, worker.getName() + " never waited for room in its pipe");
            Thread.onSpinWait();
        }
    }

    /** Subscribes without demand; items go to {@code into}. */
    private static Flow.Subscription subscribe(Flow.Publisher<Long> publisher, BlockingQueue<Long> into) throws Exception {
        CompletableFuture<Flow.Subscription> subscribed = new CompletableFuture<>();
        publisher.subscribe(new Recorder(subscribed::complete, (s, item) -> into.add(item)));
        return subscribed.get(10, TimeUnit.SECONDS);
    }

    record Subscribed(WeakReference<Flow.Subscriber<Long>> subscriber, WeakReference<Flow.Subscription> subscription,
            List<String> signals) {}

    /**
     * Subscribes with demand for two items, takes the first, waits until the delivering thread is
     * parked for the second (which a {@link #gated} producer withholds), cancels from this thread and
     * keeps only weak references to the subscriber and its subscription.
     */
    private static Subscribed subscribeTakeOneAndCancel(Flow.Publisher<Long> publisher) throws Exception {
        CompletableFuture<Flow.Subscription> first = new CompletableFuture<>();
        CompletableFuture<Thread> deliverer = new CompletableFuture<>();
        Recorder recorder = new Recorder(s -> s.request(2), (s, item) -> {
            deliverer.complete(Thread.currentThread());
            first.complete(s);
        });
        publisher.subscribe(recorder);
        Flow.Subscription subscription = first.get(10, TimeUnit.SECONDS);
        Thread delivering = deliverer.get();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (delivering.getState() != Thread.State.WAITING && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertEquals(Thread.State.WAITING, delivering.getState(), "the deliverer waits for the withheld item");
        subscription.cancel();
        return new Subscribed(new WeakReference<>(recorder), new WeakReference<>(subscription), recorder.signals);
    }

    /** Runs the collector until {@code reference} is cleared, up to {@code deadline}. */
    private static boolean collected(WeakReference<?> reference, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        while (reference.get() != null && System.nanoTime() < end) {
            System.gc();
        }
        return reference.get() == null;
    }
}
