package dev.moroutine.internal.stream;

import static dev.moroutine.stream.Streaming.emitting;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link ItemSourceContract} for a channel's consumer end, the only consumer of its channel: an
 * ending source is a collection (pulled in runs), a failing one an iterable whose iterator throws
 * after the items (pulled one at a time), and an unfinished one a stream task that emits the items
 * and then waits until it is closed, which the channel does when its last consumer closes.
 */
class ChannelEndContractTest extends ItemSourceContract {

    /** Released by the stream task at each item it emitted; a fresh one per test. */
    private static volatile Semaphore emitted;
    /** What the stream task waits for after its items; opened after each test. */
    private static volatile CountDownLatch hold;

    static final StreamMo1<List<Integer>, Integer> thenWait = emitting((List<Integer> items, Emitter<Integer> out) -> {
        CountDownLatch mine = hold;
        for (Integer item : items) {
            out.emit(item);
            emitted.release();
        }
        mine.await();
        out.emit(-1); // refused once the channel has closed this task's stream: the task ends, its worker is free
    });

    /** Every end made by a test (a live stream's cleaner would cancel an unreachable one); closed after it. */
    private final List<LiveStream<Integer>> made = new ArrayList<>();
    private final Map<ItemSource, Integer> unfinishedSizes = new WeakHashMap<>();

    @BeforeEach
    void start() {
        emitted = new Semaphore(0);
        hold = new CountDownLatch(1);
    }

    @AfterEach
    void closeEnds() {
        made.forEach(LiveStream::close);
        hold.countDown();
    }

    @Override
    ItemSource ending(List<Integer> items) {
        return end(new ChannelImpl<>(new ArrayList<>(items), 16));
    }

    @Override
    ItemSource failing(List<Integer> items, String message) {
        Iterable<Integer> thenThrows = () -> new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Integer next() {
                if (next == items.size()) {
                    throw new IllegalStateException(message);
                }
                return items.get(next++);
            }
        };
        return end(new ChannelImpl<>(thenThrows, 16));
    }

    @Override
    ItemSource unfinished(List<Integer> items) {
        ItemSource source = end(new ChannelImpl<>(thenWait.call(List.copyOf(items)), 16));
        unfinishedSizes.put(source, items.size());
        return source;
    }

    @Override
    void awaitProduced(ItemSource source) throws InterruptedException {
        Integer size = unfinishedSizes.get(source);
        if (size != null) {
            assertTrue(emitted.tryAcquire(size, TIMEOUT_SECONDS, TimeUnit.SECONDS), "the stream task did not emit its items");
        }
        // an iterable's items are pulled by the consumer's own next(): nothing is on its way
    }

    private ItemSource end(ChannelImpl<Integer> channel) {
        LiveStream<Integer> live = channel.join();
        made.add(live);
        return ((LiveStreamImpl<?>) live).source();
    }
}
