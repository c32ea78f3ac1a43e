package dev.moroutine.bench;

import static dev.moroutine.stream.Streaming.channel;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.isolated.Isolated;
import dev.moroutine.isolated.IsolatedOptions;
import dev.moroutine.stream.LiveStream;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The systems whose workers are other processes: moroutine's worker JVMs ({@code Isolated.workers}),
 * and the naive peer, a {@link ProcessBuilder} child per worker talking over its stdin and stdout
 * ({@link PipeChild}). Each serves as a {@link Dispatcher} and, with one worker, as a stream
 * {@link Transport}'s peer (see {@link #transport}).
 */
final class ProcessPeers {

    private ProcessPeers() {}

    /** Worker JVMs, the pool's defaults (a stream high-water mark of 256, 16 per channel consumer). */
    static final String ISOLATED = "moroutine-isolated";
    /** Worker JVMs, a stream high-water mark of 1024. */
    static final String ISOLATED_1024 = "moroutine-isolated (highWaterMark 1024)";
    /** A ProcessBuilder child per worker, over its pipes. */
    static final String PIPE = "ProcessBuilder+pipe";

    /**
     * The system property (milliseconds, 0 or unset for none) that {@link BenchMain} sets in every
     * benchmark JVM: how long a trial runs its benchmark's operation on one of these systems before
     * JMH's own warm-up begins.
     */
    static final String WARM_UP_PROPERTY = "bench.processWarmUpMillis";

    /**
     * Runs {@code operation} for the {@link #WARM_UP_PROPERTY}'s milliseconds (at least once) if {@code system} runs its
     * work in other processes; does nothing otherwise. JMH's warm-up warms the JIT of the JVM it
     * runs in, which is where the thread pools work; a worker JVM compiles only the code that its
     * own tasks run, at the rate they come while it is still slow: on 2 cores a worker JVM took
     * about 5 s of pipelined noop tasks to reach its steady rate, past JMH's 3 × 1 s warm-up, so
     * without this a worker JVM's score was partly its start.
     *
     * @param system the system under test
     * @param operation the benchmark's operation, run again and again
     * @throws Exception if the operation fails
     */
    static void warmUp(String system, Callable<?> operation) throws Exception {
        long nanos = TimeUnit.MILLISECONDS.toNanos(Long.getLong(WARM_UP_PROPERTY, 0));
        if (nanos == 0 || !(system.equals(ISOLATED) || system.equals(ISOLATED_1024) || system.equals(PIPE))) {
            return;
        }
        long start = System.nanoTime();
        do {
            operation.call();
        } while (System.nanoTime() - start < nanos);
    }

    /** Worker JVMs with the pool's stream high-water mark, or the default for 0. */
    static Pool isolated(int workers, int highWaterMark) {
        PoolOptions options = PoolOptions.defaults();
        return Isolated.workers(workers, IsolatedOptions.defaults()
                .withPoolOptions(highWaterMark == 0 ? options : options.withHighWaterMark(highWaterMark)));
    }

    /** What a {@link Dispatcher} does, for the systems here. */
    interface Tasks {
        Future<Integer> submit();

        Integer call() throws Exception;

        void close();
    }

    /** What a {@link Transport} does, for the systems here. */
    interface Streams {
        long workerToCaller(List<Integer> items) throws Exception;

        long callerToWorker(List<Integer> items) throws Exception;

        long roundTrip(List<Integer> items) throws Exception;

        void close();
    }

    /** Noop tasks on worker JVMs. */
    static final class IsolatedDispatcher implements Tasks {
        private final Pool pool;

        IsolatedDispatcher(int workers) {
            pool = isolated(workers, 0);
        }

        @Override
        public Future<Integer> submit() {
            return pool.submit(Noop.noop.call());
        }

        @Override
        public Integer call() {
            return pool.run(Noop.noop.call());
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    /** One child over its pipes: commands written and flushed, answers read by a reader thread in order. */
    private static final class PipeWorker {
        final Process process = PipeChild.start();
        final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
        final DataInputStream in = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
        final ConcurrentLinkedQueue<CompletableFuture<Integer>> waiting = new ConcurrentLinkedQueue<>();
        Thread reader;

        synchronized Future<Integer> noop() {
            if (reader == null) {
                reader = Thread.ofPlatform().daemon().name("pipe-reader").start(this::read);
            }
            CompletableFuture<Integer> answer = new CompletableFuture<>();
            waiting.add(answer);
            try {
                out.writeInt(PipeChild.NOOP);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return answer;
        }

        private void read() {
            try {
                for (;;) {
                    int value = in.readInt();
                    waiting.poll().complete(value);
                }
            } catch (IOException ended) {
                CompletableFuture<Integer> left;
                while ((left = waiting.poll()) != null) {
                    left.completeExceptionally(ended);
                }
            }
        }

        void close() {
            try {
                out.close();
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException e) {
                process.destroyForcibly();
            }
        }
    }

    /** Noop tasks on ProcessBuilder children, round-robin. */
    static final class PipeDispatcher implements Tasks {
        private final PipeWorker[] workers;
        private int next;

        PipeDispatcher(int count) {
            workers = new PipeWorker[count];
            for (int i = 0; i < count; i++) {
                workers[i] = new PipeWorker();
            }
        }

        @Override
        public Future<Integer> submit() {
            PipeWorker worker = workers[next];
            next = (next + 1) % workers.length;
            return worker.noop();
        }

        @Override
        public Integer call() throws Exception {
            return submit().get();
        }

        @Override
        public void close() {
            for (PipeWorker worker : workers) {
                worker.close();
            }
        }
    }

    /** The stream shapes on one worker JVM. */
    static final class IsolatedStreams implements Streams {
        private final Pool pool;

        IsolatedStreams(int highWaterMark) {
            pool = isolated(1, highWaterMark);
        }

        @Override
        public long workerToCaller(List<Integer> items) {
            long sum = 0;
            try (LiveStream<Integer> stream = pool.run(Items.range.call(items.size()))) {
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

        @Override
        public void close() {
            pool.close();
        }
    }

    /** The stream shapes on one ProcessBuilder child. */
    static final class PipeStreams implements Streams {
        private final PipeWorker worker = new PipeWorker();

        @Override
        public long workerToCaller(List<Integer> items) throws IOException {
            worker.out.writeInt(PipeChild.PRODUCE);
            worker.out.writeInt(items.size());
            worker.out.flush();
            long sum = 0;
            for (int i = 0; i < items.size(); i++) {
                sum += worker.in.readInt();
            }
            return sum;
        }

        @Override
        public long callerToWorker(List<Integer> items) throws IOException {
            worker.out.writeInt(PipeChild.SUM);
            worker.out.writeInt(items.size());
            for (Integer item : items) {
                worker.out.writeInt(item);
            }
            worker.out.flush();
            return worker.in.readLong();
        }

        @Override
        public long roundTrip(List<Integer> items) throws Exception {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    worker.out.writeInt(PipeChild.PLUS_ONE);
                    worker.out.writeInt(items.size());
                    for (Integer item : items) {
                        worker.out.writeInt(item);
                    }
                    worker.out.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            long sum = 0;
            for (int i = 0; i < items.size(); i++) {
                sum += worker.in.readInt();
            }
            writer.join();
            return sum;
        }

        @Override
        public void close() {
            worker.close();
        }
    }
}
