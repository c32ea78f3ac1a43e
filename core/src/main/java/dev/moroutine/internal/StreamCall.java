package dev.moroutine.internal;

import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamTask;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * A call of a streaming moroutine. Running it creates a {@link Pipe}, sends the producer's
 * execution to a worker and returns the pipe's consumer end at once; the execution's completion
 * (failure, cancellation, a stopped worker) is forwarded into the pipe, so a consumer never waits
 * on a producer that will not come.
 *
 * @param <T> the item type
 */
public final class StreamCall<T> extends Call<LiveStream<T>> implements StreamTask<T> {

    private final int highWaterMark; // 0: the pool's, or the default

    StreamCall(Definition definition, Object[] args, ThreadWorker assigned, Duration timeout, int highWaterMark) {
        super(definition, args, assigned, timeout);
        this.highWaterMark = highWaterMark;
    }

    @Override
    StreamCall<T> copy(ThreadWorker worker, Duration timeout) {
        return new StreamCall<>(definition(), args(), worker, timeout, highWaterMark);
    }

    @Override
    public StreamTask<T> withHighWaterMark(int items) {
        return new StreamCall<>(definition(), args(), assigned(), timeout(), Streams.checkHighWaterMark(items));
    }

    @Override
    public StreamCall<T> withTimeout(Duration timeout) {
        return copy(assigned(), Timeouts.check(timeout));
    }

    @Override
    LiveStream<T> runOn(Worker worker, int poolHighWaterMark) {
        return open(worker, poolHighWaterMark);
    }

    /** Starts the producer on {@code worker} and returns the consumer's end. */
    LiveStream<T> open(Worker worker, int poolHighWaterMark) {
        return prepare(poolHighWaterMark).sendTo(worker).join();
    }

    /** The producer's execution and the consumer's end; the producer starts when it is sent. */
    @Override
    Prepared<LiveStream<T>> prepare(int poolHighWaterMark) {
        Pipe<Object> pipe = new Pipe<>(highWaterMark > 0 ? highWaterMark : poolHighWaterMark, "stream of " + this);
        pipe.openedAt(Streams.openingSite());
        Execution<LiveStream<T>> producer = new Execution<>(this, pipe);
        producer.whenComplete((ignored, failure) -> {
            if (failure != null) {
                pipe.fail(failure);
            }
        });
        pipe.onCancel(() -> producer.cancel("the consumer closed the stream"));
        LiveStream<T> consumerEnd = new LiveStreamImpl<>(pipe, "stream of " + this);
        return new Prepared<>(producer, CompletableFuture.completedFuture(consumerEnd)) {
            @Override
            CompletableFuture<LiveStream<T>> sendTo(Worker worker) {
                if (worker.thread() == Thread.currentThread()) {
                    IllegalStateException selfWait = new IllegalStateException(Thread.currentThread().getName()
                            + " would consume " + StreamCall.this + ", whose producer must run on this same worker after"
                            + " the current task: it would wait for itself. This happens when a stream task is piped into"
                            + " a task of the same moroutine (its dedicated worker runs both) or assigned to the"
                            + " consumer's own worker: run the consumer on a pool, or assign the producer to another worker");
                    abandon(selfWait);
                    throw selfWait;
                }
                return super.sendTo(worker);
            }
        };
    }

    @Override
    public Flow.Publisher<T> publisher() {
        return new StreamPublisher<>(this::join);
    }
}
