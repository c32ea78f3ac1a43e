package dev.moroutine.bench;

import static dev.moroutine.Moroutine.workers;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.Streaming;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.SubmissionPublisher;
import java.util.function.IntUnaryOperator;
import org.jctools.queues.SpscArrayQueue;

/**
 * One way of moving a sequence of items between threads, named by {@link StreamingBenchmark}'s
 * {@code system} parameter, in the three directions of the streaming shapes:
 *
 * <ul>
 *   <li>{@link #workerToCaller}: a producer on a worker thread, the caller consumes;</li>
 *   <li>{@link #callerToWorker}: the caller's items, consumed by a task on a worker, which returns their sum;</li>
 *   <li>{@link #roundTrip}: the caller's items go to a worker that adds one to each and sends them back.</li>
 * </ul>
 *
 * Each call returns the sum of what arrived, so nothing can be optimised away and the smoke test
 * can check it. The systems:
 *
 * <ul>
 *   <li>{@value #MOROUTINE}: a {@code workers(1)} pool with the defaults. Worker→caller runs the streaming moroutine
 *       {@link Items#emitAll} and iterates the {@link LiveStream}; caller→worker passes
 *       {@code channel(items)} to {@link Items#sum} (the worker's task pulls the caller's
 *       list through the channel, a run of 256 at a time); the round trip passes {@code channel(items)} to the stage
 *       {@link Items#plusOne} and iterates its stream. Default high-water marks: 256 for a stream
 *       and 256 per consumer of a channel.</li>
 *   <li>{@value #MOROUTINE_16}: the same with a high-water mark of 16 for the streams and the channels
 *       alike, the bound of the queue hand-offs below.</li>
 *   <li>{@value #ARRAY_BLOCKING_QUEUE}: {@code new ArrayBlockingQueue<>(16)}, {@code put}/{@code take}
 *       between platform threads of a fixed pool; the round trip uses two queues and a stage thread.</li>
 *   <li>{@value #SUBMISSION_PUBLISHER}: {@code new SubmissionPublisher<>(executor, Flow.defaultBufferSize())}
 *       (a buffer of 256), a subscriber that requests everything; its items are delivered on the
 *       executor's thread, never on the caller's, so worker→caller ends on a subscriber thread that
 *       the caller waits for. The round trip chains two publishers through a mapping subscriber.</li>
 *   <li>{@value #SPSC}: JCTools' {@code SpscArrayQueue<>(16)} with both sides busy-spinning
 *       ({@code Thread.onSpinWait()}, and {@code Thread.yield()} every 128 spins so that a spinner
 *       does not hold a core that the other side needs when the machine is busy): no parking at all,
 *       an upper bound for a bounded hand-off of 16 when each side has a core of its own. Its round
 *       trip uses two queues and still spins two threads, not three: the caller offers its items
 *       and takes the worker's back in one loop.</li>
 * </ul>
 */
public abstract sealed class Transport implements AutoCloseable {

    /** moroutine's streams and channels on a {@code workers(1)} pool. */
    public static final String MOROUTINE = "moroutine";
    /** The same, every stream and channel at a high-water mark of {@link #CAPACITY}. */
    public static final String MOROUTINE_16 = "moroutine (highWaterMark 16)";
    /** {@code ArrayBlockingQueue(16)} between platform threads. */
    public static final String ARRAY_BLOCKING_QUEUE = "ArrayBlockingQueue";
    /** {@code SubmissionPublisher} with its default buffer. */
    public static final String SUBMISSION_PUBLISHER = "SubmissionPublisher";
    /** JCTools {@code SpscArrayQueue(16)}, both sides spinning. */
    public static final String SPSC = "JCTools-SPSC";

    /** The capacity of the queue hand-offs, and the high-water mark of {@link #MOROUTINE_16}. */
    public static final int CAPACITY = 16;

    /**
     * Makes the named transport.
     *
     * @param system one of the constants of this class
     * @return the transport, to be closed after the trial
     * @throws IllegalArgumentException for an unknown system
     */
    public static Transport create(String system) {
        return switch (system) {
            case MOROUTINE -> new Moroutine(0);
            case MOROUTINE_16 -> new Moroutine(CAPACITY);
            case ARRAY_BLOCKING_QUEUE -> new Blocking();
            case SUBMISSION_PUBLISHER -> new Publisher();
            case SPSC -> new Spinning();
            case ProcessPeers.ISOLATED -> new OtherProcess(new ProcessPeers.IsolatedStreams(0));
            case ProcessPeers.ISOLATED_1024 -> new OtherProcess(new ProcessPeers.IsolatedStreams(1024));
            case ProcessPeers.PIPE -> new OtherProcess(new ProcessPeers.PipeStreams());
            default -> throw new IllegalArgumentException("unknown system \"" + system + "\"");
        };
    }

    /**
     * A worker produces the items, the caller consumes them.
     *
     * @param items what to move
     * @return the sum of the items received
     * @throws Exception if the hand-off fails
     */
    public abstract long workerToCaller(List<Integer> items) throws Exception;

    /**
     * The caller's items are consumed by a task on a worker.
     *
     * @param items what to move
     * @return the sum that the worker computed
     * @throws Exception if the hand-off fails
     */
    public abstract long callerToWorker(List<Integer> items) throws Exception;

    /**
     * The caller's items go to a worker, which adds one to each, and come back to the caller.
     *
     * @param items what to move
     * @return the sum of the items that came back
     * @throws Exception if the hand-off fails
     */
    public abstract long roundTrip(List<Integer> items) throws Exception;

    /** Stops the transport's threads. */
    @Override
    public abstract void close();

    private static final IntUnaryOperator PLUS_ONE = x -> x + 1;

    private static final class Moroutine extends Transport {
        private final Pool pool;
        /** Items in flight per stream and per channel consumer; 0 for the defaults. */
        private final int highWaterMark;

        Moroutine(int highWaterMark) {
            this.highWaterMark = highWaterMark;
            pool = highWaterMark == 0 ? workers(1) : workers(1, PoolOptions.defaults().withHighWaterMark(highWaterMark));
        }

        @Override
        public long workerToCaller(List<Integer> items) {
            long sum = 0;
            try (LiveStream<Integer> stream = pool.run(Items.emitAll.call(items))) {
                for (Integer item : stream) {
                    sum += item;
                }
            }
            return sum;
        }

        @Override
        public long callerToWorker(List<Integer> items) {
            return pool.run(Items.sum.call(channel(items)));
        }

        @Override
        public long roundTrip(List<Integer> items) {
            long sum = 0;
            try (LiveStream<Integer> stream = pool.run(Items.plusOne.call(channel(items)))) {
                for (Integer item : stream) {
                    sum += item;
                }
            }
            return sum;
        }

        private Channel<Integer> channel(List<Integer> items) {
            return highWaterMark == 0 ? Streaming.channel(items) : Streaming.channel(items, highWaterMark);
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    private static final class Blocking extends Transport {
        private final ExecutorService threads = Executors.newFixedThreadPool(2);
        private final BlockingQueue<Integer> in = new ArrayBlockingQueue<>(CAPACITY);
        private final BlockingQueue<Integer> out = new ArrayBlockingQueue<>(CAPACITY);

        @Override
        public long workerToCaller(List<Integer> items) throws Exception {
            Future<?> producer = threads.submit(() -> {
                putAll(items, out);
                return null;
            });
            long sum = drain(out);
            producer.get();
            return sum;
        }

        @Override
        public long callerToWorker(List<Integer> items) throws Exception {
            Future<Long> consumer = threads.submit(() -> drain(in));
            putAll(items, in);
            return consumer.get();
        }

        @Override
        public long roundTrip(List<Integer> items) throws Exception {
            Future<?> producer = threads.submit(() -> {
                putAll(items, in);
                return null;
            });
            Future<?> stage = threads.submit(() -> {
                for (Integer item = in.take(); item != Items.END; item = in.take()) {
                    out.put(PLUS_ONE.applyAsInt(item));
                }
                out.put(Items.END);
                return null;
            });
            long sum = drain(out);
            producer.get();
            stage.get();
            return sum;
        }

        private static void putAll(List<Integer> items, BlockingQueue<Integer> queue) throws InterruptedException {
            for (Integer item : items) {
                queue.put(item);
            }
            queue.put(Items.END);
        }

        private static long drain(BlockingQueue<Integer> queue) throws InterruptedException {
            long sum = 0;
            for (Integer item = queue.take(); item != Items.END; item = queue.take()) {
                sum += item;
            }
            return sum;
        }

        @Override
        public void close() {
            threads.close();
        }
    }

    private static final class Publisher extends Transport {
        private final ExecutorService threads = Executors.newFixedThreadPool(3);

        @Override
        public long workerToCaller(List<Integer> items) throws Exception {
            SubmissionPublisher<Integer> publisher = new SubmissionPublisher<>(threads, Flow.defaultBufferSize());
            Summing summing = new Summing();
            publisher.subscribe(summing);
            Future<?> producer = threads.submit(() -> {
                try (publisher) {
                    items.forEach(publisher::submit);
                }
            });
            long sum = summing.result.get();
            producer.get();
            return sum;
        }

        @Override
        public long callerToWorker(List<Integer> items) throws Exception {
            Summing summing = new Summing();
            try (SubmissionPublisher<Integer> publisher = new SubmissionPublisher<>(threads, Flow.defaultBufferSize())) {
                publisher.subscribe(summing);
                items.forEach(publisher::submit);
            }
            return summing.result.get();
        }

        @Override
        public long roundTrip(List<Integer> items) throws Exception {
            Summing summing = new Summing();
            SubmissionPublisher<Integer> back = new SubmissionPublisher<>(threads, Flow.defaultBufferSize());
            back.subscribe(summing);
            try (SubmissionPublisher<Integer> there = new SubmissionPublisher<>(threads, Flow.defaultBufferSize())) {
                there.subscribe(new Mapping(back));
                items.forEach(there::submit);
            }
            return summing.result.get();
        }

        @Override
        public void close() {
            threads.close();
        }

        /** Requests everything; the publisher's buffer bounds what is in flight. */
        private abstract static class Unbounded implements Flow.Subscriber<Integer> {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }
        }

        private static final class Summing extends Unbounded {
            final CompletableFuture<Long> result = new CompletableFuture<>();
            private long sum;

            @Override
            public void onNext(Integer item) {
                sum += item;
            }

            @Override
            public void onError(Throwable failure) {
                result.completeExceptionally(failure);
            }

            @Override
            public void onComplete() {
                result.complete(sum);
            }
        }

        private static final class Mapping extends Unbounded {
            private final SubmissionPublisher<Integer> next;

            Mapping(SubmissionPublisher<Integer> next) {
                this.next = next;
            }

            @Override
            public void onNext(Integer item) {
                next.submit(PLUS_ONE.applyAsInt(item));
            }

            @Override
            public void onError(Throwable failure) {
                next.closeExceptionally(failure);
            }

            @Override
            public void onComplete() {
                next.close();
            }
        }
    }

    private static final class Spinning extends Transport {
        private final ExecutorService threads = Executors.newFixedThreadPool(1);
        private final SpscArrayQueue<Integer> queue = new SpscArrayQueue<>(CAPACITY);
        private final SpscArrayQueue<Integer> back = new SpscArrayQueue<>(CAPACITY);

        @Override
        public long workerToCaller(List<Integer> items) throws Exception {
            Future<?> producer = threads.submit(() -> offerAll(items, queue));
            long sum = drain(queue);
            producer.get();
            return sum;
        }

        @Override
        public long callerToWorker(List<Integer> items) throws Exception {
            Future<Long> consumer = threads.submit(() -> drain(queue));
            offerAll(items, queue);
            return consumer.get();
        }

        @Override
        public long roundTrip(List<Integer> items) throws Exception {
            Future<?> stage = threads.submit(() -> {
                for (int spins = 1; ; spins++) {
                    Integer item = queue.poll();
                    if (item == Items.END) {
                        offer(Items.END, back);
                        return;
                    } else if (item == null) {
                        idle(spins);
                    } else {
                        offer(PLUS_ONE.applyAsInt(item), back);
                    }
                }
            });
            // Never waits on one queue alone: the stage may be waiting for room in the other.
            long sum = 0;
            int sent = 0;
            for (int spins = 1; ; spins++) {
                if (sent <= items.size() && queue.offer(sent < items.size() ? items.get(sent) : Items.END)) {
                    sent++;
                }
                Integer item = back.poll();
                if (item == Items.END) {
                    break;
                } else if (item == null) {
                    idle(spins);
                } else {
                    sum += item;
                }
            }
            stage.get();
            return sum;
        }

        private static void offerAll(List<Integer> items, SpscArrayQueue<Integer> queue) {
            for (Integer item : items) {
                offer(item, queue);
            }
            offer(Items.END, queue);
        }

        private static void offer(Integer item, SpscArrayQueue<Integer> queue) {
            for (int spins = 1; !queue.offer(item); spins++) {
                idle(spins);
            }
        }

        private static void idle(int spins) {
            if ((spins & 127) == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }

        private static long drain(SpscArrayQueue<Integer> queue) {
            long sum = 0;
            for (int spins = 1; ; spins++) {
                Integer item = queue.poll();
                if (item == null) {
                    idle(spins);
                } else if (item == Items.END) {
                    return sum;
                } else {
                    sum += item;
                }
            }
        }

        @Override
        public void close() {
            threads.close();
        }
    }

    /** A worker in another process: see {@link ProcessPeers}. */
    private static final class OtherProcess extends Transport {
        private final ProcessPeers.Streams streams;

        OtherProcess(ProcessPeers.Streams streams) {
            this.streams = streams;
        }

        @Override
        public long workerToCaller(List<Integer> items) throws Exception {
            return streams.workerToCaller(items);
        }

        @Override
        public long callerToWorker(List<Integer> items) throws Exception {
            return streams.callerToWorker(items);
        }

        @Override
        public long roundTrip(List<Integer> items) throws Exception {
            return streams.roundTrip(items);
        }

        @Override
        public void close() {
            streams.close();
        }
    }
}
