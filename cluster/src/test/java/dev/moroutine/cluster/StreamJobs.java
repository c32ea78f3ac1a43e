package dev.moroutine.cluster;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.streaming;

import dev.moroutine.Mo0;
import dev.moroutine.Mo2;
import dev.moroutine.stream.StreamMo1;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/** The moroutines of the stream tests; every member finds them by id. */
final class StreamJobs {

    private StreamJobs() {}

    /** {@code n} numbers, then an item no codec of a default pool can carry (an unregistered record). */
    static final StreamMo1<Integer, Object> thenUncrossable = streaming((Integer n) -> Stream.concat(
            IntStream.range(0, n).boxed().map(i -> (Object) i), Stream.of((Object) new Jobs.Resource("cannot-cross"))));

    /** Counted down when a member's pool closes the {@link Blocker} its worker made. */
    static final CountDownLatch CLOSING = new CountDownLatch(1);
    /** Opened by the test: the blocker's close returns (at most 20 s later on its own). */
    static final CountDownLatch RELEASE = new CountDownLatch(1);

    /** A task-arg value whose close holds the member's pool closing (as a slow resource's would). */
    record Blocker(String member) implements AutoCloseable {
        @Override
        public void close() {
            CLOSING.countDown();
            try {
                RELEASE.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Counted down when the producer of {@link #endless} under a key stops (its stream is closed). */
    static final java.util.Map<String, CountDownLatch> STOPPED = new java.util.concurrent.ConcurrentHashMap<>();

    /** Numbers from 0, endless; closing the producer's stream counts {@link #STOPPED} down. */
    static final StreamMo1<String, Integer> endless = streaming((String key) -> IntStream.iterate(0, i -> i + 1).boxed()
            .onClose(() -> STOPPED.computeIfAbsent(key, k -> new CountDownLatch(1)).countDown()));

    static final Mo0<Blocker> blocker = mo(() -> new Blocker(Cluster.here().getName()));

    static final Mo2<Blocker, Integer, String> useBlocker = mo((b, i) -> b.member() + ":" + i);
}
