package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consumer that parks for want of items parks lazily first, for a batch (a quarter of the
 * high-water mark, at most 64) or its timer, and then eagerly, untimed (see {@link Pipe}'s class
 * comment, "Waiting").
 */
@Timeout(60)
class PipeBatchWakeTest {

    private static final long NO_TIMER = TimeUnit.HOURS.toNanos(1);
    private static final long SHORT_TIMER = TimeUnit.MILLISECONDS.toNanos(1);

    /** A consumer thread that takes every item into {@code taken}, the end as {@link ItemSource#END}. */
    private record Consumer(Thread thread, LinkedBlockingQueue<Object> taken, AtomicReference<Throwable> failed) {
        static Consumer of(Pipe<?> pipe) {
            LinkedBlockingQueue<Object> taken = new LinkedBlockingQueue<>();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread thread = Thread.ofPlatform().daemon().start(() -> {
                try {
                    Object item;
                    do {
                        item = pipe.next();
                        taken.add(item);
                    } while (item != ItemSource.END);
                } catch (RuntimeException e) {
                    failed.set(e);
                }
            });
            return new Consumer(thread, taken, failed);
        }

        /** Waits, up to a deadline, until the consumer's thread is in {@code state}. */
        void awaitState(Thread.State state, String what) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (thread.getState() != state) {
                assertTrue(System.nanoTime() < deadline, what + " (state " + thread.getState() + ")");
                Thread.yield();
            }
        }

        Object take() throws InterruptedException {
            Object item = taken.poll(10, TimeUnit.SECONDS);
            assertTrue(item != null, "no item came (consumer " + thread.getState() + ", failed " + failed.get() + ")");
            return item;
        }
    }

    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {8, 16, 256, 1024})
    void aLazilyParkedConsumerIsWokenByTheItemThatCompletesABatch(int highWaterMark) throws Exception {
        Pipe<Integer> pipe = new Pipe<>(highWaterMark, new Pipe.ProducerWait(), "batch pipe", false, NO_TIMER);
        int batch = Math.min(64, highWaterMark / 4);
        Consumer consumer = Consumer.of(pipe);
        consumer.awaitState(Thread.State.TIMED_WAITING, "the consumer parks lazily");
        for (int i = 0; i < batch - 1; i++) {
            pipe.emit(i);
        }
        assertEquals(0, pipe.consumedCount(), "short of a batch, the consumer sleeps on");
        assertEquals(Thread.State.TIMED_WAITING, consumer.thread().getState());
        pipe.emit(batch - 1);
        for (int i = 0; i < batch; i++) {
            assertEquals(i, consumer.take());
        }
        pipe.finish();
        assertEquals(ItemSource.END, consumer.take());
    }

    /** A lazy wait without a timer here: only the end can end it, and it does at once. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"finish", "fail"})
    void anEndWakesALazilyParkedConsumer(String end) throws Exception {
        Pipe<Integer> pipe = new Pipe<>(256, new Pipe.ProducerWait(), "batch pipe", false, NO_TIMER);
        Consumer consumer = Consumer.of(pipe);
        consumer.awaitState(Thread.State.TIMED_WAITING, "the consumer parks lazily");
        pipe.emit(7);
        if (end.equals("finish")) {
            pipe.finish();
        } else {
            pipe.fail(new IllegalStateException("the producer failed"));
        }
        assertEquals(7, consumer.take());
        if (end.equals("finish")) {
            assertEquals(ItemSource.END, consumer.take());
        } else {
            consumer.thread().join(TimeUnit.SECONDS.toMillis(10));
            assertTrue(String.valueOf(consumer.failed().get()).contains("the producer failed"), String.valueOf(consumer.failed().get()));
        }
    }

    @Test
    void aLazyWaitThatFindsNothingWhenItsTimerEndsParksUntimed() throws Exception {
        Pipe<Integer> pipe = new Pipe<>(256, new Pipe.ProducerWait(), "batch pipe", false, SHORT_TIMER);
        Consumer consumer = Consumer.of(pipe);
        consumer.awaitState(Thread.State.WAITING, "an idle stream's consumer ends in an untimed park: it costs no CPU");
        pipe.emit(1); // one item wakes an eager consumer
        assertEquals(1, consumer.take());
        pipe.finish();
        assertEquals(ItemSource.END, consumer.take());
    }

    @ParameterizedTest(name = "high-water mark {0}")
    @ValueSource(ints = {1, 4, 7})
    void aConsumerOfASmallPipeParksEagerly(int highWaterMark) throws Exception {
        Pipe<Integer> pipe = new Pipe<>(highWaterMark, new Pipe.ProducerWait(), "small pipe", false, NO_TIMER);
        Consumer consumer = Consumer.of(pipe);
        consumer.awaitState(Thread.State.WAITING, "no batch below a mark of 8");
        pipe.emit(1);
        assertEquals(1, consumer.take());
        pipe.finish();
        assertEquals(ItemSource.END, consumer.take());
    }

    @Test
    void aForwardingPipesConsumerParksEagerly() throws Exception {
        Pipe<Object> pipe = Pipe.forwarding(256, "forwarding pipe");
        Consumer consumer = Consumer.of(pipe);
        consumer.awaitState(Thread.State.WAITING, "its queue may hold less than a batch while its producer waits for acknowledgements");
        pipe.emit("item");
        assertEquals("item", consumer.take());
        pipe.finish();
        assertEquals(ItemSource.END, consumer.take());
    }
}
