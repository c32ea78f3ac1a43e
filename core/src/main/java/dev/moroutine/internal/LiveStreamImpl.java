package dev.moroutine.internal;

import dev.moroutine.stream.LiveStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collector;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A {@link LiveStream} over an {@link ItemSource}: one JDK stream built on a spliterator that
 * pulls the source, and a guard so that it is consumed once. Every stream method delegates to that
 * JDK stream, so laziness, short-circuiting and {@code onClose} behave as for any stream.
 *
 * <p>A terminal operation called on the live stream itself ({@code toList()}, {@code findFirst()},
 * {@code forEach}…) closes it when it returns, so a short-circuiting one stops the producer at
 * once. The spliterator (reachable from every derived stream and iterator) is registered with a
 * {@link Cleaner}: if it becomes unreachable before the source ends, the source is cancelled, so a
 * loop left with {@code break} and no {@code close()} cannot hold a producer's worker forever.
 */
final class LiveStreamImpl<T> implements LiveStream<T> {

    private static final Cleaner CLEANER = Cleaner.create();
    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(LiveStreamImpl.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Stream<T> items;
    private final String description;
    private volatile boolean claimed;

    LiveStreamImpl(ItemSource source, String description) {
        this.description = description;
        Spliterator<T> pulling = new Pulling<>(source);
        CLEANER.register(pulling, source::cancel);
        this.items = StreamSupport.stream(pulling, false).onClose(source::cancel);
    }

    private static final class Pulling<T> extends Spliterators.AbstractSpliterator<T> {
        private final ItemSource source;

        Pulling(ItemSource source) {
            super(Long.MAX_VALUE, ORDERED);
            this.source = source;
        }

        @Override
        @SuppressWarnings("unchecked") // the producer emits only T
        public boolean tryAdvance(Consumer<? super T> action) {
            Object item = source.next();
            if (item == ItemSource.END) {
                return false;
            }
            action.accept((T) item);
            return true;
        }
    }

    private Stream<T> claim() {
        if (!CLAIMED.compareAndSet(this, false, true)) {
            throw new IllegalStateException(description + " is already being consumed: a live stream can be consumed"
                    + " once; run the task again for a new stream");
        }
        return items;
    }

    @Override
    public Iterator<T> iterator() {
        return claim().iterator();
    }

    @Override
    public Spliterator<T> spliterator() {
        return claim().spliterator();
    }

    @Override
    public void forEach(Consumer<? super T> action) {
        try {
            claim().forEach(action);
        } finally {
            close();
        }
    }

    @Override
    public void close() {
        items.close();
    }

    @Override
    public boolean isParallel() {
        return false;
    }

    @Override
    public Stream<T> sequential() {
        return claim();
    }

    @Override
    public Stream<T> parallel() {
        return claim().parallel();
    }

    @Override
    public Stream<T> unordered() {
        return claim().unordered();
    }

    @Override
    public Stream<T> onClose(Runnable closeHandler) {
        return claim().onClose(closeHandler);
    }

    @Override
    public Stream<T> filter(Predicate<? super T> predicate) {
        return claim().filter(predicate);
    }

    @Override
    public <R> Stream<R> map(Function<? super T, ? extends R> mapper) {
        return claim().map(mapper);
    }

    @Override
    public IntStream mapToInt(ToIntFunction<? super T> mapper) {
        return claim().mapToInt(mapper);
    }

    @Override
    public LongStream mapToLong(ToLongFunction<? super T> mapper) {
        return claim().mapToLong(mapper);
    }

    @Override
    public DoubleStream mapToDouble(ToDoubleFunction<? super T> mapper) {
        return claim().mapToDouble(mapper);
    }

    @Override
    public <R> Stream<R> flatMap(Function<? super T, ? extends Stream<? extends R>> mapper) {
        return claim().flatMap(mapper);
    }

    @Override
    public IntStream flatMapToInt(Function<? super T, ? extends IntStream> mapper) {
        return claim().flatMapToInt(mapper);
    }

    @Override
    public LongStream flatMapToLong(Function<? super T, ? extends LongStream> mapper) {
        return claim().flatMapToLong(mapper);
    }

    @Override
    public DoubleStream flatMapToDouble(Function<? super T, ? extends DoubleStream> mapper) {
        return claim().flatMapToDouble(mapper);
    }

    @Override
    public <R> Stream<R> mapMulti(BiConsumer<? super T, ? super Consumer<R>> mapper) {
        return claim().mapMulti(mapper);
    }

    @Override
    public Stream<T> distinct() {
        return claim().distinct();
    }

    @Override
    public Stream<T> sorted() {
        return claim().sorted();
    }

    @Override
    public Stream<T> sorted(Comparator<? super T> comparator) {
        return claim().sorted(comparator);
    }

    @Override
    public Stream<T> peek(Consumer<? super T> action) {
        return claim().peek(action);
    }

    @Override
    public Stream<T> limit(long maxSize) {
        return claim().limit(maxSize);
    }

    @Override
    public Stream<T> skip(long n) {
        return claim().skip(n);
    }

    @Override
    public Stream<T> takeWhile(Predicate<? super T> predicate) {
        return claim().takeWhile(predicate);
    }

    @Override
    public Stream<T> dropWhile(Predicate<? super T> predicate) {
        return claim().dropWhile(predicate);
    }

    @Override
    public <R> Stream<R> gather(java.util.stream.Gatherer<? super T, ?, R> gatherer) {
        return claim().gather(gatherer);
    }

    @Override
    public void forEachOrdered(Consumer<? super T> action) {
        try {
            claim().forEachOrdered(action);
        } finally {
            close();
        }
    }

    @Override
    public Object[] toArray() {
        try {
            return claim().toArray();
        } finally {
            close();
        }
    }

    @Override
    public <A> A[] toArray(IntFunction<A[]> generator) {
        try {
            return claim().toArray(generator);
        } finally {
            close();
        }
    }

    @Override
    public T reduce(T identity, BinaryOperator<T> accumulator) {
        try {
            return claim().reduce(identity, accumulator);
        } finally {
            close();
        }
    }

    @Override
    public Optional<T> reduce(BinaryOperator<T> accumulator) {
        try {
            return claim().reduce(accumulator);
        } finally {
            close();
        }
    }

    @Override
    public <U> U reduce(U identity, BiFunction<U, ? super T, U> accumulator, BinaryOperator<U> combiner) {
        try {
            return claim().reduce(identity, accumulator, combiner);
        } finally {
            close();
        }
    }

    @Override
    public <R> R collect(Supplier<R> supplier, BiConsumer<R, ? super T> accumulator, BiConsumer<R, R> combiner) {
        try {
            return claim().collect(supplier, accumulator, combiner);
        } finally {
            close();
        }
    }

    @Override
    public <R, A> R collect(Collector<? super T, A, R> collector) {
        try {
            return claim().collect(collector);
        } finally {
            close();
        }
    }

    @Override
    public java.util.List<T> toList() {
        try {
            return claim().toList();
        } finally {
            close();
        }
    }

    @Override
    public Optional<T> min(Comparator<? super T> comparator) {
        try {
            return claim().min(comparator);
        } finally {
            close();
        }
    }

    @Override
    public Optional<T> max(Comparator<? super T> comparator) {
        try {
            return claim().max(comparator);
        } finally {
            close();
        }
    }

    @Override
    public long count() {
        try {
            return claim().count();
        } finally {
            close();
        }
    }

    @Override
    public boolean anyMatch(Predicate<? super T> predicate) {
        try {
            return claim().anyMatch(predicate);
        } finally {
            close();
        }
    }

    @Override
    public boolean allMatch(Predicate<? super T> predicate) {
        try {
            return claim().allMatch(predicate);
        } finally {
            close();
        }
    }

    @Override
    public boolean noneMatch(Predicate<? super T> predicate) {
        try {
            return claim().noneMatch(predicate);
        } finally {
            close();
        }
    }

    @Override
    public Optional<T> findFirst() {
        try {
            return claim().findFirst();
        } finally {
            close();
        }
    }

    @Override
    public Optional<T> findAny() {
        try {
            return claim().findAny();
        } finally {
            close();
        }
    }

    @Override
    public String toString() {
        return "LiveStream[" + description + "]";
    }
}
