package dev.moroutine.bench;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.emitting;
import static dev.moroutine.stream.Streaming.streaming;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo1;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The items that the streaming benchmarks move, and the moroutines that move them. Every system is
 * given the same pre-boxed {@code Integer}s, so no system pays for boxing and the garbage is the
 * hand-off's own.
 */
public final class Items {

    /** Emits 0 … n-1: the producer of stream worker→caller on a worker JVM, which the caller's list does not reach. */
    public static final StreamMo1<Integer, Integer> range = emitting((Integer n, Emitter<Integer> out) -> {
        for (int i = 0; i < n; i++) {
            out.emit(i);
        }
    });

    /** Emits the items of a list one by one, under backpressure: the producer of stream worker→caller. */
    public static final StreamMo1<List<Integer>, Integer> emitAll = emitting((List<Integer> items, Emitter<Integer> out) -> {
        for (Integer item : items) {
            out.emit(item);
        }
    });

    /** Adds one to each item of its stream argument: the stage of the round trip. */
    public static final StreamMo1<Stream<Integer>, Integer> plusOne = streaming(in -> in.map(x -> x + 1));

    /** Sums its items: a batch (a list passed as a value) or a piped stream (a channel). */
    public static final Mo1<Iterable<Integer>, Long> sum = mo(items -> sumOf(items));

    /**
     * Counts its items: one consumer of a fan-out. It counts down {@code started} first, once its
     * stream argument (the channel) is attached, so that the source can wait for every consumer
     * (see {@link #afterConsumers}).
     */
    public static final Mo2<Iterable<Integer>, CountDownLatch, Integer> count = mo((items, started) -> {
        started.countDown();
        int n = 0;
        for (Integer ignored : items) {
            n++;
        }
        return n;
    });

    /** Returns its argument: the task of "one task per item". */
    public static final Mo1<Integer, Integer> echo = mo(x -> x);

    /** Ends a queue hand-off: the consumer stops when it takes this. */
    static final Integer END = Integer.valueOf(-1);

    private Items() {}

    /**
     * {@code 0, 1, …, n - 1}, boxed once.
     *
     * @param n how many
     * @return an unmodifiable list of distinct {@code Integer} objects
     */
    public static List<Integer> boxed(int n) {
        List<Integer> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            items.add(Integer.valueOf(i));
        }
        return Collections.unmodifiableList(items);
    }

    /**
     * The items, as a source that holds back its first item until {@code consumers} reaches zero
     * (or 10 seconds have passed): a fan-out then measures every consumer from the start, not the
     * order in which their tasks happened to start.
     *
     * @param items the items
     * @param consumers counted down by each consumer once it is attached
     * @return a one-shot iterable over the items
     */
    public static Iterable<Integer> afterConsumers(List<Integer> items, CountDownLatch consumers) {
        return () -> new Iterator<>() {
            private final Iterator<Integer> iterator = items.iterator();
            private boolean open;

            @Override
            public boolean hasNext() {
                if (!open) {
                    open = true;
                    try {
                        consumers.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return iterator.hasNext();
            }

            @Override
            public Integer next() {
                return iterator.next();
            }
        };
    }

    /**
     * The sum of the items.
     *
     * @param items the items
     * @return their sum
     */
    public static long sumOf(Iterable<Integer> items) {
        long sum = 0;
        for (Integer item : items) {
            sum += item;
        }
        return sum;
    }

    /**
     * The expected sum of {@link #boxed}{@code (n)}, for the smoke test.
     *
     * @param n how many items
     * @return {@code n (n - 1) / 2}
     */
    public static long expectedSum(int n) {
        return (long) n * (n - 1) / 2;
    }
}
