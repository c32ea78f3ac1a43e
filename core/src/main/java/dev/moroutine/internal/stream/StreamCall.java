package dev.moroutine.internal.stream;

import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.call.Definition;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.Timeouts;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.internal.dispatch.WorkerGroup;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamTask;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * A call of a streaming moroutine. Running it creates a {@link Pipe}, sends the producer's
 * execution to a worker and returns the pipe's consumer end at once; the pipe is the execution's
 * output {@link Endpoint.Binding}, so the execution's completion (failure, cancellation, a stopped
 * worker) is forwarded into the pipe and a consumer never waits on a producer that will not come.
 *
 * <p>As an argument of another task (an {@link Endpoint}), it is opened on the consuming worker
 * when that task runs, with the consuming pool's high-water mark unless it sets its own, and
 * closed when that task returns.
 *
 * @param <T> the item type
 */
public final class StreamCall<T> extends Call<LiveStream<T>> implements StreamTask<T>, Endpoint {

    private final int highWaterMark; // 0: the pool's, or the default

    private StreamCall(Definition definition, Object[] args, Worker assigned, Duration timeout, int highWaterMark) {
        super(definition, args, assigned, timeout);
        this.highWaterMark = highWaterMark;
    }

    /**
     * Describes a call of a streaming moroutine.
     *
     * @param definition the moroutine
     * @param args the arguments: values, or {@link Definition#taskArg}s
     * @param <T> the item type
     * @return the task
     */
    public static <T> StreamCall<T> of(Definition definition, Object... args) {
        definition.id();
        return new StreamCall<>(definition, args, null, null, 0);
    }

    /**
     * The function's output, as a streaming moroutine's function receives it after its arguments.
     *
     * @param resolved the arguments the function was invoked with
     * @param arity the moroutine's arity
     * @return the pipe it sends its items to (and finishes)
     */
    @SuppressWarnings("unchecked") // bound by this class's output binding
    public static Pipe<Object> output(Object[] resolved, int arity) {
        return (Pipe<Object>) resolved[arity];
    }

    @Override
    protected StreamCall<T> copy(Worker worker, Duration timeout) {
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
    protected CompletableFuture<LiveStream<T>> submitTo(Worker worker) {
        return prepare(worker.group()).sendTo(worker);
    }

    @Override
    protected LiveStream<T> runOn(Worker worker) {
        return open(worker, worker.group());
    }

    /** Starts the producer on {@code worker} and returns the consumer's end. */
    private LiveStream<T> open(Worker worker, WorkerGroup group) {
        return prepare(group).sendTo(worker).join();
    }

    /** The producer's execution and the consumer's end; the producer starts when it is sent. */
    @Override
    protected Prepared<LiveStream<T>> prepare(WorkerGroup group) {
        int items = highWaterMark > 0 ? highWaterMark : group != null ? group.highWaterMark() : Streams.DEFAULT_HIGH_WATER_MARK;
        Pipe<Object> pipe = new Pipe<>(items, "stream of " + this);
        pipe.openedAt(Streams.openingSite());
        Execution<LiveStream<T>> producer = new Execution<>(this, new Output(pipe));
        pipe.onCancel(() -> producer.cancel("the consumer closed the stream"));
        LiveStream<T> consumerEnd = new LiveStreamImpl<>(pipe, "stream of " + this);
        return new Prepared<>(producer, CompletableFuture.completedFuture(consumerEnd));
    }

    /** The producer's side of its pipe, bound to its execution. */
    private final class Output extends PipeOutput {
        Output(Pipe<Object> pipe) {
            super(pipe);
        }

        @Override
        public void sentTo(Worker worker) {
            if (worker.isCurrent()) {
                throw new IllegalStateException(Thread.currentThread().getName()
                        + " would consume " + StreamCall.this + ", whose producer must run on this same worker after"
                        + " the current task: it would wait for itself. This happens when a stream task is piped into"
                        + " a task of the same moroutine (its dedicated worker runs both) or assigned to the"
                        + " consumer's own worker: run the consumer on a pool, or assign the producer to another worker");
            }
        }

        @Override
        public String holdsWorker() {
            return "the " + pipe + ", opened at " + pipe.openedAt() + "; a stream's producer keeps its worker until the"
                    + " stream is read to the end or closed: close the LiveStream (try-with-resources)";
        }
    }

    /** As another task's argument: opened on the consuming worker for one run. */
    @Override
    public Endpoint.Binding bind(Invocation consumer) {
        return new Endpoint.Binding() {
            private LiveStream<T> live;

            @Override
            public Object open(Worker consumer) {
                live = StreamCall.this.open(defaultWorker(), consumer.group());
                return live;
            }

            @Override
            public void closeAfterRun() {
                live.close();
            }
        };
    }

    @Override
    public Flow.Publisher<T> publisher() {
        return new StreamPublisher<>(this::join);
    }
}
