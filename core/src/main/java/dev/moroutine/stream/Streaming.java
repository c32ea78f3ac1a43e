package dev.moroutine.stream;

import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.Signal;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.stream.ChannelImpl;
import dev.moroutine.internal.call.Definition;
import dev.moroutine.internal.stream.MapSource;
import dev.moroutine.internal.stream.Streams;
import java.util.Iterator;
import java.util.Objects;

/**
 * The streaming entry points, meant to be imported statically next to
 * {@link dev.moroutine.Moroutine}: {@code streaming(…)} and {@code emitting(…)} define streaming
 * moroutines, {@link #channel} shares one source among several consumers, {@link #map} runs
 * a lazy sequence of tasks on a pool with bounded concurrency, and {@link #assign} pins a stream
 * task to a pool's worker.
 *
 * <pre>{@code
 * public static final StreamMo1<Integer, Integer> countUp = streaming(n -> IntStream.range(0, n).boxed());
 *
 * try (LiveStream<Integer> numbers = countUp.call(5).join()) {
 *     numbers.forEach(System.out::println);   // 0 1 2 3 4, produced on countUp's worker
 * }
 * }</pre>
 *
 * <p>Like {@code mo(…)}, the definitions must be stored in {@code static final} fields. All methods
 * are thread-safe.
 */
public final class Streaming {

    private Streaming() {}

    /**
     * Defines a pull-style streaming moroutine: the function returns a {@code Stream}, pulled
     * lazily on the worker as the consumer makes room.
     *
     * @param body the function
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <T> StreamMo0<T> streaming(StreamMo0.Body<T> body) {
        return new StreamMo0<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a push-style streaming moroutine: the function sends items to an {@link Emitter}
     * (its last parameter), blocking under backpressure.
     *
     * @param body the function
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <T> StreamMo0<T> emitting(StreamMo0.Emitting<T> body) {
        return new StreamMo0<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a pull-style streaming moroutine: the function returns a {@code Stream}, pulled
     * lazily on the worker as the consumer makes room.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, T> StreamMo1<A, T> streaming(StreamMo1.Body<A, T> body) {
        return new StreamMo1<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a push-style streaming moroutine: the function sends items to an {@link Emitter}
     * (its last parameter), blocking under backpressure.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, T> StreamMo1<A, T> emitting(StreamMo1.Emitting<A, T> body) {
        return new StreamMo1<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a pull-style streaming moroutine: the function returns a {@code Stream}, pulled
     * lazily on the worker as the consumer makes room.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, T> StreamMo2<A, B, T> streaming(StreamMo2.Body<A, B, T> body) {
        return new StreamMo2<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a push-style streaming moroutine: the function sends items to an {@link Emitter}
     * (its last parameter), blocking under backpressure.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, T> StreamMo2<A, B, T> emitting(StreamMo2.Emitting<A, B, T> body) {
        return new StreamMo2<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a pull-style streaming moroutine: the function returns a {@code Stream}, pulled
     * lazily on the worker as the consumer makes room.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, C, T> StreamMo3<A, B, C, T> streaming(StreamMo3.Body<A, B, C, T> body) {
        return new StreamMo3<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a push-style streaming moroutine: the function sends items to an {@link Emitter}
     * (its last parameter), blocking under backpressure.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, C, T> StreamMo3<A, B, C, T> emitting(StreamMo3.Emitting<A, B, C, T> body) {
        return new StreamMo3<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a pull-style streaming moroutine: the function returns a {@code Stream}, pulled
     * lazily on the worker as the consumer makes room.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <D> the type of the fourth argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, C, D, T> StreamMo4<A, B, C, D, T> streaming(StreamMo4.Body<A, B, C, D, T> body) {
        return new StreamMo4<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a push-style streaming moroutine: the function sends items to an {@link Emitter}
     * (its last parameter), blocking under backpressure.
     *
     * @param body the function
     * @param <A> the type of the first argument
     * @param <B> the type of the second argument
     * @param <C> the type of the third argument
     * @param <D> the type of the fourth argument
     * @param <T> the item type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, C, D, T> StreamMo4<A, B, C, D, T> emitting(StreamMo4.Emitting<A, B, C, D, T> body) {
        return new StreamMo4<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * A channel over a stream task's items, with the default high-water mark (256, as
     * {@link java.util.concurrent.Flow#defaultBufferSize()}: a consumer takes up to 256 items at
     * once). The task runs once, on its own worker, when the first consumer attaches.
     *
     * @param source the producing task
     * @param <T> the item type
     * @return the channel; pass it to several tasks
     * @throws NullPointerException if {@code source} is null
     */
    public static <T> Channel<T> channel(StreamTask<? extends T> source) {
        return channel(source, Streams.DEFAULT_CHANNEL_HIGH_WATER_MARK);
    }

    /**
     * A channel over a stream task's items: each item goes to exactly one of the consumers the
     * channel is passed to. See {@link Channel}.
     *
     * @param source the producing task, run once, on its own worker, when the first consumer attaches
     * @param highWaterMark the most items a consumer takes from the source at once, at least 1
     * @param <T> the item type
     * @return the channel; pass it to several tasks
     * @throws IllegalArgumentException if {@code highWaterMark} is less than 1
     * @throws NullPointerException if {@code source} is null
     */
    public static <T> Channel<T> channel(StreamTask<? extends T> source, int highWaterMark) {
        return new ChannelImpl<>(Objects.requireNonNull(source, "source"), Streams.checkHighWaterMark(highWaterMark));
    }

    /**
     * A channel over local items, with the default high-water mark (256: a consumer takes up to 256 items at once).
     *
     * @param source the items, iterated once, by the consumers in turn (see {@link Channel})
     * @param <T> the item type
     * @return the channel; pass it to several tasks
     * @throws NullPointerException if {@code source} is null
     */
    public static <T> Channel<T> channel(Iterable<? extends T> source) {
        return channel(source, Streams.DEFAULT_CHANNEL_HIGH_WATER_MARK);
    }

    /**
     * A channel over local items: each item goes to exactly one of the consumers the channel is
     * passed to. See {@link Channel}.
     *
     * @param source the items, iterated once, by the consumers in turn (see {@link Channel})
     * @param highWaterMark the most items a consumer takes from the source at once, at least 1
     * @param <T> the item type
     * @return the channel; pass it to several tasks
     * @throws IllegalArgumentException if {@code highWaterMark} is less than 1
     * @throws NullPointerException if {@code source} is null
     */
    public static <T> Channel<T> channel(Iterable<? extends T> source, int highWaterMark) {
        return new ChannelImpl<>(Objects.requireNonNull(source, "source"), Streams.checkHighWaterMark(highWaterMark));
    }

    /**
     * Runs tasks on a pool, at most {@code concurrency} at a time, and streams their results in
     * completion order. Tasks are pulled from {@code tasks} lazily, on the consuming thread, only as
     * slots free up, so an endless source works. A failed task ends the stream with its failure
     * (a {@link dev.moroutine.TaskFailedException}); closing the stream cancels the tasks in flight
     * that have not started (a consumer waiting on it, closed from another thread, sees it end). A
     * consumer interrupted while it waits for a result gets a
     * {@link java.util.concurrent.CancellationException} (with its interrupt status kept), and the
     * tasks in flight are cancelled too.
     *
     * @param pool where the tasks run
     * @param tasks the tasks
     * @param concurrency most tasks in flight at once, at least 1
     * @param <R> the result type
     * @return the results, in completion order
     * @throws IllegalArgumentException if {@code concurrency} is less than 1
     * @throws NullPointerException if an argument is null
     */
    public static <R> LiveStream<R> map(Pool pool, Iterator<? extends Task<? extends R>> tasks, int concurrency) {
        return MapSource.stream(pool, tasks, concurrency, null);
    }

    /**
     * Like {@link #map(Pool, Iterator, int)}, and stops when {@code signal} fires: the stream then
     * ends normally, as if the tasks had run out, so a for-each loop over it simply finishes. No
     * task is pulled and no result is yielded after that (results not yet taken are dropped), and
     * the tasks in flight that have not started are cancelled; a task that then fails (say, one
     * stopped by the same signal) ends the stream too, without an exception. To learn whether the
     * loop ended because of the signal, ask the signal: {@code signal.aborted()}. Pass the same
     * signal to the tasks themselves to stop those already running.
     *
     * <pre>{@code
     * try (LiveStream<Integer> results = map(pool, tasks, 4, controller.signal())) {
     *     for (int result : results) {
     *         if (result == target) controller.abort("found");   // the loop then ends
     *     }
     * }
     * boolean found = controller.signal().aborted();
     * }</pre>
     *
     * @param pool where the tasks run
     * @param tasks the tasks
     * @param concurrency most tasks in flight at once, at least 1
     * @param signal stops the mapping when it fires
     * @param <R> the result type
     * @return the results, in completion order
     * @throws IllegalArgumentException if {@code concurrency} is less than 1
     * @throws NullPointerException if an argument is null
     */
    public static <R> LiveStream<R> map(Pool pool, Iterator<? extends Task<? extends R>> tasks, int concurrency,
            Signal signal) {
        return MapSource.stream(pool, tasks, concurrency, Objects.requireNonNull(signal, "signal"));
    }

    /**
     * {@link #map(Pool, Iterator, int)} over an iterable (or a {@code Stream}, as {@code stream::iterator}).
     *
     * @param pool where the tasks run
     * @param tasks the tasks
     * @param concurrency most tasks in flight at once, at least 1
     * @param <R> the result type
     * @return the results, in completion order
     * @throws IllegalArgumentException if {@code concurrency} is less than 1
     * @throws NullPointerException if an argument is null
     */
    public static <R> LiveStream<R> map(Pool pool, Iterable<? extends Task<? extends R>> tasks, int concurrency) {
        return map(pool, Objects.requireNonNull(tasks, "tasks").iterator(), concurrency);
    }

    /**
     * {@link #map(Pool, Iterator, int, Signal)} over an iterable.
     *
     * @param pool where the tasks run
     * @param tasks the tasks
     * @param concurrency most tasks in flight at once, at least 1
     * @param signal stops the mapping when it fires
     * @param <R> the result type
     * @return the results, in completion order
     * @throws IllegalArgumentException if {@code concurrency} is less than 1
     * @throws NullPointerException if an argument is null
     */
    public static <R> LiveStream<R> map(Pool pool, Iterable<? extends Task<? extends R>> tasks, int concurrency,
            Signal signal) {
        return map(pool, Objects.requireNonNull(tasks, "tasks").iterator(), concurrency, signal);
    }

    /**
     * Pins a stream task to one worker of a pool, as {@link dev.moroutine.Moroutine#assign} does,
     * and keeps it a {@code StreamTask}: every run of the returned task, each subscription of its
     * {@link StreamTask#publisher() publisher} included, runs on {@code worker}. Two subscriptions
     * that must be consumed together (a {@code zip}) need two workers: assign each to its own.
     *
     * @param worker a handle from {@link Pool#workers()}
     * @param task the stream task
     * @param <T> the item type
     * @return a stream task that runs only on {@code worker}
     * @throws IllegalArgumentException if {@code worker} is not a handle of a moroutine pool, or
     *     {@code task} was not made by a moroutine
     * @throws NullPointerException if either is null
     */
    public static <T> StreamTask<T> assign(WorkerHandle worker, StreamTask<T> task) {
        return (StreamTask<T>) Moroutine.assign(worker, task);
    }

    private static StackWalker.StackFrame callSite() {
        return Definition.callSite(Streaming.class);
    }
}
