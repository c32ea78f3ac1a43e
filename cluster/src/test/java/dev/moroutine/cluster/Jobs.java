package dev.moroutine.cluster;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.streaming;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.stream.StreamMo1;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/** The moroutines the cluster tests run; every member of the test cluster finds them by id. */
final class Jobs {

    private Jobs() {}

    static final Mo1<Integer, Integer> square = mo(x -> x * x);

    /** The name of the member that runs it. */
    static final Mo0<String> whereAmI = mo(() -> Cluster.here().getName());

    /** The member's name and the task's number: exactly-once accounting. */
    static final Mo1<Integer, String> tagged = mo(i -> Cluster.here().getName() + "#" + i);

    /** How many times each member's task-arg was made. */
    static final Map<String, AtomicInteger> RESOURCES_MADE = new ConcurrentHashMap<>();
    static final Map<String, AtomicInteger> RESOURCES_CLOSED = new ConcurrentHashMap<>();

    /** A task-arg value: made once per member, closed when the pool closes there. */
    record Resource(String member) implements AutoCloseable {
        @Override
        public void close() {
            RESOURCES_CLOSED.computeIfAbsent(member, m -> new AtomicInteger()).incrementAndGet();
        }
    }

    static final Mo0<Resource> resource = mo(() -> {
        String member = Cluster.here().getName();
        RESOURCES_MADE.computeIfAbsent(member, m -> new AtomicInteger()).incrementAndGet();
        return new Resource(member);
    });

    static final Mo2<Resource, Integer, String> useResource = mo((r, i) -> r.member() + ":" + i);

    static final Mo1<Object, String> describe = mo(value -> String.valueOf(value));

    static final Mo1<Integer, String> fails = mo(i -> {
        throw new IllegalStateException("task " + i + " failed on purpose");
    });

    /** Held until released, counted when started: a task that is running when its member goes. */
    static final Map<String, CountDownLatch> STARTED = new ConcurrentHashMap<>();
    static final CountDownLatch RELEASE = new CountDownLatch(1);

    static final Mo1<String, String> held = mo(key -> {
        STARTED.computeIfAbsent(key, k -> new CountDownLatch(1)).countDown();
        RELEASE.await();
        return Cluster.here().getName();
    });

    static final Mo1<Integer, String> idempotentTagged = mo(i -> Cluster.here().getName() + "#" + i);

    static final StreamMo1<Integer, Integer> numbers = streaming(n -> IntStream.range(0, n).boxed());

    /** Items handed to the stream so far, per key: the producer's lead, seen from the test. */
    static final Map<String, AtomicInteger> PRODUCED = new ConcurrentHashMap<>();

    /** Numbers from 0, endless, counted under {@code key} as the producer hands each to the stream. */
    static final StreamMo1<String, Integer> counted = streaming((String key) -> {
        AtomicInteger produced = PRODUCED.computeIfAbsent(key, k -> new AtomicInteger());
        return IntStream.iterate(0, i -> i + 1).boxed().peek(i -> produced.incrementAndGet());
    });

    /** Opened by the test: the second item of {@link #gated} waits for it. */
    static final CountDownLatch GATE = new CountDownLatch(1);

    /** One item, then, once the gate opens, a second: a slow producer. */
    static final StreamMo1<Integer, Integer> gated = streaming((Integer first) -> IntStream.of(first, first + 1).boxed().peek(i -> {
        if (i > first) {
            try {
                GATE.await();
            } catch (InterruptedException stopped) {
                throw new IllegalStateException(stopped);
            }
        }
    }));

    static final StreamMo1<Integer, Integer> failingStream = streaming((Integer n) -> IntStream.range(0, n + 1).boxed().map(i -> {
        if (i == n) {
            throw new IllegalStateException("stream broke after " + n + " items");
        }
        return i;
    }));
}
