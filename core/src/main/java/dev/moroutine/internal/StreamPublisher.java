package dev.moroutine.internal;

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
 */
final class StreamPublisher<T> implements Flow.Publisher<T> {

    private final Supplier<LiveStream<T>> open;

    StreamPublisher(Supplier<LiveStream<T>> open) {
        this.open = open;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        LiveStream<T> items;
        try {
            items = open.get();
        } catch (RuntimeException e) {
            subscriber.onSubscribe(new Delivery<>(null, subscriber));
            subscriber.onError(e);
            return;
        }
        Delivery<T> delivery = new Delivery<>(items, subscriber);
        subscriber.onSubscribe(delivery);
        Thread.ofVirtual().name("moroutine-publisher").start(delivery::deliver);
    }

    private static final class Delivery<T> implements Flow.Subscription {
        private static final VarHandle DEMAND;

        static {
            try {
                DEMAND = MethodHandles.lookup().findVarHandle(Delivery.class, "demand", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final LiveStream<T> items;
        private final Flow.Subscriber<? super T> subscriber;
        private volatile long demand;
        private volatile boolean cancelled;
        private volatile Throwable badRequest;
        private volatile Thread deliverer;

        Delivery(LiveStream<T> items, Flow.Subscriber<? super T> subscriber) {
            this.items = items;
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (cancelled) {
                return; // rule 3.6
            }
            if (n <= 0) {
                badRequest = new IllegalArgumentException("request(" + n + "): demand must be positive (Reactive Streams rule 3.9)");
                cancelled = true;
                if (items != null) {
                    items.close(); // wakes a deliverer blocked on the next item
                }
            } else {
                long current;
                do {
                    current = demand;
                } while (!DEMAND.compareAndSet(this, current, current + n < 0 ? Long.MAX_VALUE : current + n));
            }
            LockSupport.unpark(deliverer);
        }

        @Override
        public void cancel() {
            cancelled = true;
            if (items != null) {
                items.close();
            }
            LockSupport.unpark(deliverer);
        }

        void deliver() {
            deliverer = Thread.currentThread();
            try (LiveStream<T> stream = items) {
                Iterator<T> iterator = stream.iterator();
                while (iterator.hasNext() && awaitDemand()) { // the end needs no demand (rule 1.5)
                    T item = iterator.next();
                    DEMAND.getAndAdd(this, -1L);
                    subscriber.onNext(item);
                }
                if (badRequest != null) {
                    subscriber.onError(badRequest);
                } else if (!cancelled) {
                    subscriber.onComplete();
                }
            } catch (RuntimeException e) {
                if (!cancelled) {
                    subscriber.onError(e);
                }
            }
        }

        /** Parks until there is demand; false once cancelled. */
        private boolean awaitDemand() {
            while (demand == 0 && !cancelled) {
                LockSupport.park(this);
            }
            return !cancelled;
        }
    }
}
