package dev.moroutine.internal.stream;

import dev.moroutine.stream.LiveStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
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
import java.util.stream.BaseStream;
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
 * {@code forEach}…) closes it when it returns or throws, so a short-circuiting one stops the
 * producer at once (one refused because the stream is already being consumed leaves it open for
 * its consumer). So does one anywhere on a stream derived from it ({@code limit(5).toList()},
 * {@code mapToInt(…).sum()}): every intermediate operation returns the JDK stream wrapped in a
 * {@link Derived} proxy, which wraps the streams its own operations return in turn, and closes the
 * pipeline (which runs the source stage's close actions: the source is cancelled) after any other
 * method, except {@code iterator()}, {@code spliterator()}, {@code isParallel()} and
 * {@code close()}, and except one that the JDK refuses because that stream was already operated
 * upon. A proxy is called once per stream operation, never per item: items flow
 * through the JDK pipeline, and an iterator or spliterator taken from it is the JDK's own.
 *
 * <p>The spliterator (reachable from every derived stream and iterator) is registered with a
 * {@link Cleaner}: if it becomes unreachable before the source ends, the source is cancelled, so a
 * loop left with {@code break} and no {@code close()} cannot hold a producer's worker forever.
 *
 * @param <T> the item type
 */
public final class LiveStreamImpl<T> implements LiveStream<T> {

    private static final Cleaner CLEANER = Cleaner.create();
    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(LiveStreamImpl.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ItemSource source;
    private final Stream<T> items;
    private final String description;
    private volatile boolean claimed;

    LiveStreamImpl(ItemSource source, String description) {
        this.source = source;
        this.description = description;
        Spliterator<T> pulling = new Pulling<>(source);
        CLEANER.register(pulling, source::cancel);
        this.items = StreamSupport.stream(pulling, false).onClose(source::cancel);
    }

    /** What this stream pulls: a channel reads a stream task's pipe itself (see {@link ChannelImpl}). */
    ItemSource source() {
        return source;
    }

    /**
     * Claims this stream, as its first consumption would, for a reader of its source: nothing else
     * may consume it then.
     *
     * @return what it pulls
     * @throws IllegalStateException if it is already being consumed
     */
    ItemSource claimSource() {
        claim();
        return source;
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

    /**
     * Closes the pipeline after a terminal operation on a stream derived from a live stream: see
     * the class comment.
     */
    private static final class Derived implements InvocationHandler {
        private static final ClassLoader LOADER = LiveStreamImpl.class.getClassLoader();
        /** Methods that return no stream but do not end it. */
        private static final Set<String> OPEN_ENDED = Set.of("iterator", "spliterator", "isParallel", "close");

        private final BaseStream<?, ?> stream;
        /**
         * Whether an operation has linked or consumed this stage, as the JDK's own flag would say:
         * the JDK then refuses a terminal operation, which must not close the pipeline that the
         * earlier one (an iterator, a later stage) is still consuming. A stream is used by one
         * thread at a time.
         */
        private boolean linked;

        private Derived(BaseStream<?, ?> stream) {
            this.stream = stream;
        }

        /** {@code stream} behind a proxy of its own interface ({@code Stream}, {@code IntStream}…). */
        @SuppressWarnings("unchecked") // the proxy implements the interface of S that stream implements
        static <S extends BaseStream<?, S>> S of(S stream) {
            return (S) proxy(stream);
        }

        private static Object proxy(BaseStream<?, ?> stream) {
            Class<?> face = stream instanceof Stream<?> ? Stream.class
                    : stream instanceof IntStream ? IntStream.class
                    : stream instanceof LongStream ? LongStream.class
                    : stream instanceof DoubleStream ? DoubleStream.class
                    : null;
            return face == null ? stream : Proxy.newProxyInstance(LOADER, new Class<?>[] {face}, new Derived(stream));
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return method.getName().equals("equals") ? proxy == args[0] : method.invoke(stream, args);
            }
            String name = method.getName();
            boolean intermediate = BaseStream.class.isAssignableFrom(method.getReturnType());
            boolean terminal = !intermediate && !OPEN_ENDED.contains(name);
            boolean closes = terminal && !linked;
            linked |= terminal || name.equals("iterator") || name.equals("spliterator");
            Object result;
            try {
                result = method.invoke(stream, args);
            } catch (InvocationTargetException failed) {
                throw failed.getCause();
            } finally {
                if (closes) {
                    stream.close();
                }
            }
            if (!intermediate) {
                return result; // a stream that a reduction returns is the caller's own, of the caller's type
            }
            if (result == stream) {
                return proxy; // sequential(), onClose(…): the same stage, not linked
            }
            linked = true;
            return proxy((BaseStream<?, ?>) result);
        }
    }

    /**
     * Runs a terminal operation on the claimed stream, then closes it. The claim comes first,
     * outside the {@code try}: a second consumer that is refused must not close the stream that
     * the first one is still consuming.
     */
    private <R> R terminal(Function<Stream<T>, R> operation) {
        Stream<T> claimed = claim();
        try {
            return operation.apply(claimed);
        } finally {
            close();
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
        terminal(claimed -> {
            claimed.forEach(action);
            return null;
        });
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
        return Derived.of(claim());
    }

    @Override
    public Stream<T> parallel() {
        return Derived.of(claim().parallel());
    }

    @Override
    public Stream<T> unordered() {
        return Derived.of(claim().unordered());
    }

    @Override
    public Stream<T> onClose(Runnable closeHandler) {
        return Derived.of(claim().onClose(closeHandler));
    }

    @Override
    public Stream<T> filter(Predicate<? super T> predicate) {
        return Derived.of(claim().filter(predicate));
    }

    @Override
    public <R> Stream<R> map(Function<? super T, ? extends R> mapper) {
        return Derived.of(claim().map(mapper));
    }

    @Override
    public IntStream mapToInt(ToIntFunction<? super T> mapper) {
        return Derived.of(claim().mapToInt(mapper));
    }

    @Override
    public LongStream mapToLong(ToLongFunction<? super T> mapper) {
        return Derived.of(claim().mapToLong(mapper));
    }

    @Override
    public DoubleStream mapToDouble(ToDoubleFunction<? super T> mapper) {
        return Derived.of(claim().mapToDouble(mapper));
    }

    @Override
    public <R> Stream<R> flatMap(Function<? super T, ? extends Stream<? extends R>> mapper) {
        return Derived.of(claim().flatMap(mapper));
    }

    @Override
    public IntStream flatMapToInt(Function<? super T, ? extends IntStream> mapper) {
        return Derived.of(claim().flatMapToInt(mapper));
    }

    @Override
    public LongStream flatMapToLong(Function<? super T, ? extends LongStream> mapper) {
        return Derived.of(claim().flatMapToLong(mapper));
    }

    @Override
    public DoubleStream flatMapToDouble(Function<? super T, ? extends DoubleStream> mapper) {
        return Derived.of(claim().flatMapToDouble(mapper));
    }

    @Override
    public <R> Stream<R> mapMulti(BiConsumer<? super T, ? super Consumer<R>> mapper) {
        return Derived.of(claim().mapMulti(mapper));
    }

    @Override
    public Stream<T> distinct() {
        return Derived.of(claim().distinct());
    }

    @Override
    public Stream<T> sorted() {
        return Derived.of(claim().sorted());
    }

    @Override
    public Stream<T> sorted(Comparator<? super T> comparator) {
        return Derived.of(claim().sorted(comparator));
    }

    @Override
    public Stream<T> peek(Consumer<? super T> action) {
        return Derived.of(claim().peek(action));
    }

    @Override
    public Stream<T> limit(long maxSize) {
        return Derived.of(claim().limit(maxSize));
    }

    @Override
    public Stream<T> skip(long n) {
        return Derived.of(claim().skip(n));
    }

    @Override
    public Stream<T> takeWhile(Predicate<? super T> predicate) {
        return Derived.of(claim().takeWhile(predicate));
    }

    @Override
    public Stream<T> dropWhile(Predicate<? super T> predicate) {
        return Derived.of(claim().dropWhile(predicate));
    }

    @Override
    public <R> Stream<R> gather(java.util.stream.Gatherer<? super T, ?, R> gatherer) {
        return Derived.of(claim().gather(gatherer));
    }

    @Override
    public void forEachOrdered(Consumer<? super T> action) {
        terminal(claimed -> {
            claimed.forEachOrdered(action);
            return null;
        });
    }

    @Override
    public Object[] toArray() {
        return terminal(Stream::toArray);
    }

    @Override
    public <A> A[] toArray(IntFunction<A[]> generator) {
        return terminal(claimed -> claimed.toArray(generator));
    }

    @Override
    public T reduce(T identity, BinaryOperator<T> accumulator) {
        return terminal(claimed -> claimed.reduce(identity, accumulator));
    }

    @Override
    public Optional<T> reduce(BinaryOperator<T> accumulator) {
        return terminal(claimed -> claimed.reduce(accumulator));
    }

    @Override
    public <U> U reduce(U identity, BiFunction<U, ? super T, U> accumulator, BinaryOperator<U> combiner) {
        return terminal(claimed -> claimed.reduce(identity, accumulator, combiner));
    }

    @Override
    public <R> R collect(Supplier<R> supplier, BiConsumer<R, ? super T> accumulator, BiConsumer<R, R> combiner) {
        return terminal(claimed -> claimed.collect(supplier, accumulator, combiner));
    }

    @Override
    public <R, A> R collect(Collector<? super T, A, R> collector) {
        return terminal(claimed -> claimed.collect(collector));
    }

    @Override
    public java.util.List<T> toList() {
        return terminal(Stream::toList);
    }

    @Override
    public Optional<T> min(Comparator<? super T> comparator) {
        return terminal(claimed -> claimed.min(comparator));
    }

    @Override
    public Optional<T> max(Comparator<? super T> comparator) {
        return terminal(claimed -> claimed.max(comparator));
    }

    @Override
    public long count() {
        return terminal(Stream::count);
    }

    @Override
    public boolean anyMatch(Predicate<? super T> predicate) {
        return terminal(claimed -> claimed.anyMatch(predicate));
    }

    @Override
    public boolean allMatch(Predicate<? super T> predicate) {
        return terminal(claimed -> claimed.allMatch(predicate));
    }

    @Override
    public boolean noneMatch(Predicate<? super T> predicate) {
        return terminal(claimed -> claimed.noneMatch(predicate));
    }

    @Override
    public Optional<T> findFirst() {
        return terminal(Stream::findFirst);
    }

    @Override
    public Optional<T> findAny() {
        return terminal(Stream::findAny);
    }

    @Override
    public String toString() {
        return "LiveStream[" + description + "]";
    }
}
