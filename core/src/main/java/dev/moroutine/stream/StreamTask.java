package dev.moroutine.stream;

import dev.moroutine.Task;
import java.time.Duration;
import java.util.concurrent.Flow;

/**
 * One call of a streaming moroutine. Like every {@link Task} it is a description: each run starts
 * the producer afresh. Running it ({@link #join()}, {@code pool.run(task)}) does not wait for the
 * producer: it returns at once the {@link LiveStream} that receives the items. The producer holds
 * its worker until its stream ends or the consumer closes it.
 *
 * <p>Passed as an argument to a parameter of type {@code Stream<T>} or {@code Iterable<T>} of
 * another moroutine, it runs on its own worker and is piped, with backpressure, to the worker that
 * runs the consumer; each such use is a new run (use a {@link Channel} to share one run among
 * several consumers).
 *
 * <p>It is deliberately not itself an {@code Iterable}: a stream task passed to a moroutine's
 * {@code Iterable<T>} parameter is then unambiguously a task-arg. Iterate over
 * {@code task.join()}, a {@link LiveStream}, which is both {@code Iterable} and {@code Stream}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the item type
 */
public sealed interface StreamTask<T> extends Task<LiveStream<T>> permits dev.moroutine.internal.stream.StreamCall {

    /**
     * The items as a reactive-streams publisher (for Reactor, RxJava, Mutiny through their
     * {@code Flow} adapters), checked by the Reactive Streams TCK. Each subscription starts a new
     * run and is served on its own virtual thread, honouring {@code request(n)}; a request of less
     * than 1 item ends it with {@code onError(IllegalArgumentException)}. Cancelling the
     * subscription stops the producer; nothing is signalled after it (a cancel from another thread
     * may still see the one signal already being delivered, as rule 1.8 allows), and the publisher lets go of
     * the subscriber. If the subscriber's {@code onSubscribe} throws, the run is stopped and
     * {@code subscribe} rethrows the exception.
     *
     * <p>Each subscription's run is a run of this task like any other: it is queued on the task's
     * worker (the moroutine's dedicated worker, or the pool worker it is assigned to), which runs
     * one at a time, and its producer holds that worker until the stream ends or is cancelled,
     * waiting for demand once {@code highWaterMark} items are in flight. So a subscriber that needs
     * the items of two subscriptions at once, such as a {@code zip} of two subscriptions of one
     * task, waits forever: the second run starts only when the first ends. Give each of them a
     * worker of its own: {@link Streaming#assign(dev.moroutine.WorkerHandle, StreamTask)} them
     * to different workers of a pool, or make them calls of different moroutines.
     *
     * @return a cold publisher of this task's items
     */
    Flow.Publisher<T> publisher();

    /**
     * This task with another high-water mark: the producer blocks while that many items are in
     * flight. Overrides the pool's setting ({@link dev.moroutine.PoolOptions#withHighWaterMark}).
     *
     * @param highWaterMark items in flight before the producer blocks, at least 1
     * @return a copy with the setting
     * @throws IllegalArgumentException if {@code highWaterMark} is less than 1
     */
    StreamTask<T> withHighWaterMark(int highWaterMark);

    /**
     * This task with a timeout for its producer, counted from the moment a worker starts it: the
     * producer must finish its stream in time, or it is stopped as {@link Task#withTimeout}
     * describes, and the consumer gets the items emitted so far, then a
     * {@link dev.moroutine.TaskFailedException} whose cause is a
     * {@link java.util.concurrent.TimeoutException}.
     *
     * @param timeout how long the producer may run, positive
     * @return a copy with the timeout
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     * @throws NullPointerException if {@code timeout} is null
     */
    @Override
    StreamTask<T> withTimeout(Duration timeout);
}
