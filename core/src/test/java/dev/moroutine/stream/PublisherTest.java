package dev.moroutine.stream;

import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.NoLeakedWorkers;
import dev.moroutine.testing.Stress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code task.publisher()} against the Reactive Streams rules the TCK cannot pin down alone. */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(120)
class PublisherTest {

    static final StreamMo1<Long, Long> naturals = streaming(n -> LongStream.range(0, n).boxed());

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
}
