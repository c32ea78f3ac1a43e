package dev.moroutine.stream;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A channel over a collection hands its items to the consumers in runs (one fence per run, not
 * per item): every item still reaches exactly one consumer, in order within each consumer, and a
 * null item or a failing iterator fails the channel after the items before it, as item by item.
 */
@Timeout(120)
class ChannelRunTest {

    /** The items a consumer took, in the order it took them. */
    static final Mo1<Stream<Integer>, List<Integer>> taken = mo(Stream::toList);

    static Stream<Long> seeds() {
        return new Random(20261201L).longs(24).boxed();
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyItemReachesExactlyOneConsumerInOrder(long seed) {
        Random random = new Random(seed);
        int size = random.nextInt(5_000);
        int consumers = 1 + random.nextInt(4);
        int highWaterMark = 1 + random.nextInt(300);
        List<Integer> items = IntStream.range(0, size).boxed().toList();
        try (Pool pool = workers(2)) {
            Channel<Integer> shared = channel(items, highWaterMark);
            List<Task<List<Integer>>> batch = new ArrayList<>();
            for (int i = 0; i < consumers; i++) {
                batch.add(taken.call(shared));
            }
            List<Integer> all = new ArrayList<>();
            for (List<Integer> one : pool.runAll(batch)) {
                for (int i = 1; i < one.size(); i++) {
                    assertTrue(one.get(i - 1) < one.get(i), "seed " + seed + ": a consumer took " + one.get(i - 1) + " before "
                            + one.get(i));
                }
                all.addAll(one);
            }
            all.sort(null);
            assertEquals(items, all, "seed " + seed + ": " + size + " items, " + consumers + " consumers, high-water mark "
                    + highWaterMark);
        }
    }

    @Test
    void aNullItemFailsTheChannelAfterTheItemsBeforeIt() {
        Channel<Integer> shared = channel(Arrays.asList(1, 2, null, 4));
        List<Integer> got = new ArrayList<>();
        try (LiveStream<Integer> end = shared.join()) {
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> end.forEach(got::add));
            assertInstanceOf(NullPointerException.class, failed.getCause());
            assertTrue(failed.getCause().getMessage().startsWith("a null item was emitted into " + shared + " consumer 1; streams carry"
                    + " non-null items only"), failed.getCause().getMessage());
        }
        assertEquals(List.of(1, 2), got);
    }

    @Test
    void anIteratorThatThrowsFailsTheChannelAfterTheItemsBeforeIt() {
        IllegalStateException broken = new IllegalStateException("the third item cannot be read");
        Collection3 source = new Collection3(broken);
        List<Integer> got = new ArrayList<>();
        try (LiveStream<Integer> end = channel(source).join()) {
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> end.forEach(got::add));
            assertSame(broken, failed.getCause());
        }
        assertEquals(List.of(0, 1), got);
    }

    /** A collection of five whose iterator throws at the third item. */
    private static final class Collection3 extends AbstractCollection<Integer> {
        private final RuntimeException thrown;

        Collection3(RuntimeException thrown) {
            this.thrown = thrown;
        }

        @Override
        public Iterator<Integer> iterator() {
            return new Iterator<>() {
                private int next;

                @Override
                public boolean hasNext() {
                    return next < 5;
                }

                @Override
                public Integer next() {
                    if (next == 2) {
                        throw thrown;
                    }
                    return next++;
                }
            };
        }

        @Override
        public int size() {
            return 5;
        }
    }
}
