package dev.moroutine.internal.stream;

import dev.moroutine.stream.LiveStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A cold {@link Flow.Publisher} over a stream task: each subscriber gets a new run, delivered by a
 * virtual thread of its own that blocks on the stream and on the subscriber's demand, so signals to
 * one subscriber are serial (Reactive Streams rule 1.3) and never exceed {@code request(n)}.
 *
 * <h2>Stopping and ending</h2>
 * A subscription stops on {@code cancel()} or on a bad {@code request(n)} (rule 3.9). Either closes
 * the live stream, which stops the producer and wakes a deliverer waiting for an item; the
 * deliverer sees the stop before it waits for demand again. The stream's iterator is taken before
 * {@code onSubscribe}, so a stop from inside {@code onSubscribe} closes a stream that is already
 * being consumed and merely ends it (a JDK stream closed before its iterator is taken cannot be
 * iterated at all, and the bad request would be lost). One call sends the terminal signal, once:
 * the deliverer's, after it closed the stream ({@code subscribe}'s when the run was refused). It
 * sends nothing after {@code cancel()}; else the bad request's {@link IllegalArgumentException};
 * else how the stream ended.
 *
 * <h2>Letting go</h2>
 * {@code cancel()} and the terminal signal drop the subscriber (rule 3.13): the delivery may stay
 * reachable a while (from the ended deliverer thread, whose task it is), the subscriber does not.
 * If {@code onSubscribe} throws (a subscriber breaking rule 2.13), its subscription is cancelled,
 * which stops the run already started (it would hold its worker), and the exception propagates to
 * the caller of {@code subscribe}.
 */
final class StreamPublisher<T> implements Flow.Publisher<T> {

    private final Supplier<LiveStream<T>> open;

    StreamPublisher(Supplier<LiveStream<T>> open) {
        this.open = open;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        LiveStream<T> items = null;
        RuntimeException refused = null;
        try {
            items = open.get();
        } catch (RuntimeException e) {
            refused = e; // signalled after onSubscribe (rule 1.9)
        }
        Delivery<T> delivery = new Delivery<>(items, subscriber);
        try {
            subscriber.onSubscribe(delivery);
        } catch (Throwable broken) {
            delivery.cancel();
            throw broken;
        }
        if (refused != null) {
            delivery.end(refused);
        } else {
            Thread.ofVirtual().name("moroutine-publisher").start(delivery::deliver);
        }
    }

    private static final class Delivery<T> implements Flow.Subscription {
        private static final VarHandle DEMAND;
        private static final VarHandle BAD_REQUEST;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                DEMAND = lookup.findVarHandle(Delivery.class, "demand", long.class);
                BAD_REQUEST = lookup.findVarHandle(Delivery.class, "badRequest", IllegalArgumentException.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** The run's items; null when it was refused. */
        private final LiveStream<T> items;
        private final Iterator<T> iterator;
        /** Null once cancelled or ended. */
        private volatile Flow.Subscriber<? super T> subscriber;
        private volatile long demand;
        private volatile boolean cancelled;
        /** The first bad request; set once. */
        private volatile IllegalArgumentException badRequest;
        private volatile Thread deliverer;

        Delivery(LiveStream<T> items, Flow.Subscriber<? super T> subscriber) {
            this.items = items;
            this.iterator = items != null ? items.iterator() : null;
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (cancelled) {
                return; // rule 3.6
            }
            if (n <= 0) {
                IllegalArgumentException bad = new IllegalArgumentException("request(" + n
                        + "): a subscriber must request at least 1 item (Reactive Streams rule 3.9)");
                if (BAD_REQUEST.compareAndSet(this, null, bad)) {
                    stop();
                }
                return;
            }
            long current;
            do {
                current = demand;
            } while (!DEMAND.compareAndSet(this, current, current + n < 0 ? Long.MAX_VALUE : current + n));
            LockSupport.unpark(deliverer);
        }

        @Override
        public void cancel() {
            cancelled = true;
            subscriber = null;
            stop();
        }

        private void stop() {
            if (items != null) {
                items.close(); // stops the producer; wakes a deliverer blocked on the next item
            }
            LockSupport.unpark(deliverer);
        }

        private boolean stopped() {
            return cancelled || badRequest != null;
        }

        void deliver() {
            deliverer = Thread.currentThread();
            Flow.Subscriber<? super T> to = subscriber; // null only if already cancelled: nothing is signalled then
            RuntimeException failure = null;
            try (items) {
                while (iterator.hasNext() && awaitDemand()) { // the end needs no demand (rule 1.5)
                    T item = iterator.next();
                    DEMAND.getAndAdd(this, -1L);
                    to.onNext(item);
                }
            } catch (RuntimeException e) {
                failure = e;
            }
            end(failure);
        }

        /** Sends the terminal signal, unless cancelled, and lets go of the subscriber. */
        void end(RuntimeException failure) {
            Flow.Subscriber<? super T> to = subscriber;
            subscriber = null;
            if (to == null || cancelled) {
                return;
            }
            IllegalArgumentException bad = badRequest;
            if (bad != null) {
                to.onError(bad);
            } else if (failure != null) {
                to.onError(failure);
            } else {
                to.onComplete();
            }
        }

        /** Parks until there is demand; false once stopped. */
        private boolean awaitDemand() {
            while (demand == 0 && !stopped()) {
                LockSupport.park(this);
            }
            return !stopped();
        }
    }
}
