package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.TaskFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of {@link ItemSource} (stated in its Javadoc), once for every implementation: each
 * subclass says how to make a source of given items, and the same tests run on it.
 */
@Timeout(60)
abstract class ItemSourceContract {

    /** How long any single wait in these tests may take before it counts as a hang. */
    static final long TIMEOUT_SECONDS = 10;

    private static final List<Integer> FEW = List.of(1, 2, 3);
    private static final List<Integer> MANY = IntStream.range(0, 200).boxed().toList();
    private static final String FAILURE = "producer failed on purpose";

    /**
     * A source whose producer produces {@code items}, in this order, then ends.
     *
     * @param items the items
     * @return the source
     */
    abstract ItemSource ending(List<Integer> items);

    /**
     * A source whose producer produces {@code items}, then fails with an
     * {@link IllegalStateException} with this message.
     *
     * @param items the items before the failure
     * @param message the failure's message
     * @return the source
     */
    abstract ItemSource failing(List<Integer> items, String message);

    /**
     * A source whose producer produces {@code items}, then nothing more until the source is
     * cancelled: a {@code next()} after the items blocks.
     *
     * @param items the items
     * @return the source
     */
    abstract ItemSource unfinished(List<Integer> items);

    /**
     * Returns once the producer of {@code source} (made here, with at most {@link #FEW} items) has
     * produced every item it will, and ended if it ends. Called after a first {@code next()}, which
     * is what sets a lazy source to work.
     *
     * @param source the source
     * @throws Exception if the wait fails or times out
     */
    abstract void awaitProduced(ItemSource source) throws Exception;

    @Test
    void itemsComeInOrderThenEndForever() {
        ItemSource source = ending(MANY);
        assertEquals(MANY, take(source, MANY.size()));
        assertSame(ItemSource.END, source.next());
        assertSame(ItemSource.END, source.next());
        assertSame(ItemSource.END, source.next());
    }

    @Test
    void anEmptySourceEndsAtOnce() {
        ItemSource source = ending(List.of());
        assertSame(ItemSource.END, source.next());
        assertSame(ItemSource.END, source.next());
    }

    @RepeatedTest(20)
    void aFailureComesAfterTheItemsBeforeItAndStays() {
        ItemSource source = failing(FEW, FAILURE);
        assertEquals(FEW, take(source, FEW.size()));
        for (int i = 0; i < 3; i++) {
            TaskFailedException e = assertThrows(TaskFailedException.class, source::next);
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertEquals(FAILURE, e.getCause().getMessage());
        }
    }

    @RepeatedTest(20)
    void cancelIsIdempotentAndLaterNextsEnd() {
        ItemSource source = unfinished(FEW);
        source.cancel();
        source.cancel();
        assertSame(ItemSource.END, source.next());
        assertSame(ItemSource.END, source.next());
        source.cancel();
        assertSame(ItemSource.END, source.next());
    }

    /** Produced items the consumer has not taken are dropped, while the producer is still at work. */
    @RepeatedTest(20)
    void cancelDropsWhatAnUnfinishedSourceHasReady() throws Exception {
        assertCancelDropsWhatIsReady(unfinished(FEW));
    }

    /** … and also once the producer has ended: the consumer's cancel still ends the source. */
    @RepeatedTest(20)
    void cancelDropsWhatAnEndedSourceHasReady() throws Exception {
        assertCancelDropsWhatIsReady(ending(FEW));
    }

    private void assertCancelDropsWhatIsReady(ItemSource source) throws Exception {
        assertEquals(FEW.get(0), source.next());
        awaitProduced(source);
        source.cancel();
        assertSame(ItemSource.END, source.next());
        assertSame(ItemSource.END, source.next());
    }

    @Test
    void cancelAfterTheEndKeepsEnding() {
        ItemSource source = ending(FEW);
        assertEquals(FEW, take(source, FEW.size()));
        assertSame(ItemSource.END, source.next());
        source.cancel();
        assertSame(ItemSource.END, source.next());
    }

    /** A failure not yet thrown is not thrown once the consumer has cancelled, and one thrown is not thrown again. */
    @RepeatedTest(20)
    void cancelEndsAFailedSource() throws Exception {
        ItemSource before = failing(FEW, FAILURE);
        assertEquals(FEW.get(0), before.next());
        awaitProduced(before);
        before.cancel();
        assertSame(ItemSource.END, before.next());

        ItemSource after = failing(FEW, FAILURE);
        assertEquals(FEW, take(after, FEW.size()));
        assertThrows(TaskFailedException.class, after::next);
        after.cancel();
        assertSame(ItemSource.END, after.next());
    }

    @RepeatedTest(20)
    void cancelFromAnotherThreadEndsABlockedNext() throws Exception {
        ItemSource source = unfinished(List.of());
        Consumer consumer = Consumer.start(source);
        consumer.awaitBlocked();
        source.cancel();
        assertSame(ItemSource.END, consumer.result.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertSame(ItemSource.END, source.next());
    }

    @RepeatedTest(20)
    void anInterruptOfABlockedNextCancelsTheSource() throws Exception {
        ItemSource source = unfinished(FEW);
        assertEquals(FEW, take(source, FEW.size()));
        Consumer consumer = Consumer.start(source);
        consumer.awaitBlocked();
        consumer.thread.interrupt();
        Throwable thrown = assertThrows(Exception.class, () -> consumer.result.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).getCause();
        assertInstanceOf(CancellationException.class, thrown);
        assertTrue(consumer.interruptedAfter.get(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the interrupt status is kept");
        assertSame(ItemSource.END, source.next());
    }

    private static List<Object> take(ItemSource source, int count) {
        List<Object> taken = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            taken.add(source.next());
        }
        return taken;
    }

    /** A consumer on a thread of its own, which calls {@code next()} once. */
    private record Consumer(Thread thread, CompletableFuture<Object> result, CompletableFuture<Boolean> interruptedAfter) {

        static Consumer start(ItemSource source) {
            CompletableFuture<Object> result = new CompletableFuture<>();
            CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
            Thread thread = Thread.ofPlatform().name("contract-consumer").daemon(true).start(() -> {
                try {
                    result.complete(source.next());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                } finally {
                    interruptedAfter.complete(Thread.currentThread().isInterrupted());
                }
            });
            return new Consumer(thread, result, interruptedAfter);
        }

        /** Waits until the consumer is parked in {@code next()}, so that what follows meets a blocked call. */
        void awaitBlocked() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
                assertFalse(result.isDone(), () -> "next() returned instead of blocking: " + result);
                assertTrue(System.nanoTime() < deadline, "the consumer did not block in next()");
                Thread.onSpinWait();
                Thread.yield();
            }
        }
    }
}
