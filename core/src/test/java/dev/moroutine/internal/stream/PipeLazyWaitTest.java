package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.stream.LiveStream;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Found by review of 09046be (the consumer's lazy wait for a batch): a stray unpark of the consumer's
 * thread (a permit left by a wake aimed at an earlier wait; a publisher's {@code request(n)},
 * which unparks its deliverer; an isolated worker's credit, which unparks the StreamFeeder that
 * reads the source pipe; a channel end's close) ends its lazy wait at once, and with an item
 * queued is counted as a timer miss, so the next 64 waits are eager. Compare {@code ProducerWait.parkLazily}, which since
 * e1341eb ends "only by a wake, an end, an interrupt or its timer (not a stray unpark)". The pipes
 * here have no lazy timer (an hour), so no timer can end a lazy wait, nor can any wait be a timer miss.
 */
@Timeout(60)
class PipeLazyWaitTest {

    private static final long NO_TIMER = TimeUnit.HOURS.toNanos(1);
    private static final int MARK = 256;
    private static final int BATCH = 64; // min(64, MARK / 4)

    /** Polls {@code condition} until it holds or {@code nanos} have passed; whether it held. */
    private static boolean within(long nanos, BooleanSupplier condition) {
        long deadline = System.nanoTime() + nanos;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.yield();
        }
        return true;
    }

    /** Waits, up to 10 s, until {@code thread} is parked (WAITING or TIMED_WAITING), and returns that state. */
    private static Thread.State parkedState(Thread thread, String what) {
        AtomicReference<Thread.State> seen = new AtomicReference<>();
        boolean parked = within(TimeUnit.SECONDS.toNanos(10), () -> {
            Thread.State s = thread.getState();
            seen.set(s);
            return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
        });
        assertTrue(parked, what + ": the thread never parked (state " + seen.get() + ")");
        return seen.get();
    }

    /**
     * The consumer waits lazily for a batch with one item queued; its thread gets a stray unpark;
     * then the batch is completed. The lazy wait should have gone on until the batch (no timer can
     * end it here), and the wait after the batch should be lazy again. Instead the unpark ends the
     * wait, the consumer takes the lone item, counts the wait as a timer miss, and waits eagerly.
     */
    @Test
    void aStrayUnparkNeitherEndsALazyWaitNorCountsAsATimerMiss() throws Exception {
        Pipe<Integer> pipe = new Pipe<>(MARK, new Pipe.ProducerWait(), "batch pipe", false, NO_TIMER);
        ConcurrentLinkedQueue<Object> taken = new ConcurrentLinkedQueue<>(); // never parks the consumer
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread consumer = Thread.ofPlatform().daemon().start(() -> {
            try {
                for (Object item; (item = pipe.next()) != ItemSource.END; ) {
                    taken.add(item);
                }
            } catch (RuntimeException e) {
                failed.set(e);
            }
        });
        assertEquals(Thread.State.TIMED_WAITING, parkedState(consumer, "the consumer waits for items"), "its first park is lazy");

        pipe.emit(0); // short of a batch: the consumer sleeps on
        LockSupport.unpark(consumer); // a stray unpark, as StreamPublisher.request or ChannelImpl's close gives
        // The consumer has nothing to take before the batch; give the wrong outcome a second to show.
        boolean tookTheLoneItem = within(TimeUnit.SECONDS.toNanos(1), () -> pipe.consumedCount() == 1);

        for (int i = 1; i < BATCH; i++) {
            pipe.emit(i); // the 64th item completes the batch
        }
        assertTrue(within(TimeUnit.SECONDS.toNanos(10), () -> pipe.consumedCount() == BATCH), "the batch was taken");
        Thread.State next = parkedState(consumer, "after the batch, the consumer waits again");
        assertNull(failed.get());
        assertEquals(BATCH, taken.size());

        assertEquals(Thread.State.TIMED_WAITING, next, "no timer can end a lazy wait here, so no wait was a timer miss and the"
                + " next wait is lazy; but the stray unpark " + (tookTheLoneItem ? "ended the lazy wait (the lone item was taken"
                + " before its batch) and " : "") + "was counted as a timer miss: the consumer now waits eagerly (64 waits)");
        pipe.finish();
        consumer.join(TimeUnit.SECONDS.toMillis(10));
    }

    /**
     * A lazy wait that its timer ends with an item queued makes exactly the next 64 waits eager, then
     * they are lazy again: one timer in 65 waits, as Pipe's class comment says. The timer is a second,
     * so that the test sees the consumer in its lazy wait however loaded the machine (with a short one,
     * a lazy wait that finds nothing soon turns eager by itself, and a miss left unrecorded would pass).
     */
    @Test
    void aTimerMissMakesTheNext64WaitsEagerAndThenTheyAreLazyAgain() throws Exception {
        Pipe<Integer> pipe = new Pipe<>(MARK, new Pipe.ProducerWait(), "batch pipe", false, TimeUnit.SECONDS.toNanos(1));
        Thread consumer = Thread.ofPlatform().daemon().start(() -> {
            while (pipe.next() != ItemSource.END) {
                // taken
            }
        });
        assertEquals(Thread.State.TIMED_WAITING, parkedState(consumer, "the first wait"), "its first park is lazy");
        pipe.emit(0); // short of a batch, and the producer stops: the timer ends the wait
        assertTrue(within(TimeUnit.SECONDS.toNanos(10), () -> pipe.consumedCount() == 1), "the timer ended the lazy wait");
        for (int i = 1; i <= 64; i++) {
            assertEquals(Thread.State.WAITING, parkedState(consumer, "wait " + i), "wait " + i + " after the miss is eager");
            pipe.emit(i);
            int taken = i + 1;
            assertTrue(within(TimeUnit.SECONDS.toNanos(10), () -> pipe.consumedCount() == taken), "item " + i + " was taken");
        }
        assertEquals(Thread.State.TIMED_WAITING, parkedState(consumer, "wait 65"), "the 65th wait is lazy again");
        pipe.finish();
        consumer.join(TimeUnit.SECONDS.toMillis(10));
    }

    /**
     * A publisher whose subscriber requests one item from {@code onNext} (the usual pattern, and the
     * TCK's): each {@code request} unparks the deliverer, which is the pipe's consumer, on its own
     * thread, so a permit is left for its next park, the lazy wait for a batch. That wait ends at
     * once and the deliverer waits eagerly: every later item wakes it on its own, the cost the
     * lazy wait was made to save (the class comment's 0.2 M items/s).
     */
    @Test
    void aPublishersRequestFromOnNextDoesNotCutItsDeliverersLazyWaitShort() throws Exception {
        Pipe<Integer> pipe = new Pipe<>(MARK, new Pipe.ProducerWait(), "publisher pipe", false, NO_TIMER);
        @SuppressWarnings({"unchecked", "rawtypes"})
        StreamPublisher<Integer> publisher = new StreamPublisher<>(() -> (LiveStream<Integer>) (LiveStream) pipe.consumerEnd());
        List<Integer> received = new CopyOnWriteArrayList<>();
        AtomicReference<Thread> deliverer = new AtomicReference<>();
        AtomicReference<Throwable> error = new AtomicReference<>();
        publisher.subscribe(new Flow.Subscriber<Integer>() {
            private Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(1);
            }

            @Override
            public void onNext(Integer item) {
                deliverer.set(Thread.currentThread());
                received.add(item);
                subscription.request(1);
            }

            @Override
            public void onError(Throwable t) {
                error.set(t);
            }

            @Override
            public void onComplete() {}
        });

        for (int i = 0; i < BATCH; i++) {
            pipe.emit(i); // one batch: wakes a lazy wait, whenever the deliverer's waits began
        }
        assertTrue(within(TimeUnit.SECONDS.toNanos(10), () -> received.size() == BATCH), "the batch was delivered (" + received.size()
                + ", " + error.get() + ")");
        Thread.State next = parkedState(deliverer.get(), "the deliverer waits for the next item");
        assertEquals(Thread.State.TIMED_WAITING, next, "the deliverer's wait for the next batch should be lazy (no timer here);"
                + " its own request(1) left a permit that ended that wait at once, and it now waits eagerly");
        pipe.finish();
    }
}
