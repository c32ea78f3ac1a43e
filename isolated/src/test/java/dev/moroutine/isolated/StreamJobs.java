package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.emitting;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo0;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.stream.StreamMo2;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CancellationException;

/** Streaming moroutines the tests run on isolated workers; loaded in the worker JVMs too. */
public final class StreamJobs {

    private StreamJobs() {}

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** A count that two processes share: a mapped file of one long. */
    public static final class Counter implements AutoCloseable {
        private final FileChannel channel;
        private final MappedByteBuffer buffer;

        public Counter(Path file) throws IOException {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES);
        }

        public long get() {
            return (long) LONGS.getVolatile(buffer, 0);
        }

        public void set(long value) {
            LONGS.setVolatile(buffer, 0, value);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /**
     * Emits 0 … n-1 and, after each emit returns, publishes how many it has emitted in the file;
     * if the caller closes the stream, publishes -(count) and ends.
     */
    public static final StreamMo2<String, Integer, Integer> counted = emitting((String file, Integer n, Emitter<Integer> out) -> {
        try (Counter emitted = new Counter(Path.of(file))) {
            int i = 0;
            try {
                for (; i < n; i++) {
                    out.emit(i);
                    emitted.set(i + 1);
                }
            } catch (CancellationException stopped) {
                emitted.set(-i - 1); // stopped here: the caller sees that the producer left
                throw stopped;
            }
        }
    });

    /** Emits the length of its text: a streaming task whose argument may be as large as a task's may be. */
    public static final StreamMo1<String, Integer> lengthOf = emitting((String text, Emitter<Integer> out) -> out.emit(text.length()));

    /** Emits n items, then fails. */
    public static final StreamMo2<Integer, String, Integer> failAfter = emitting((Integer n, String message,
            Emitter<Integer> out) -> {
        for (int i = 0; i < n; i++) {
            out.emit(i);
        }
        throw new IllegalStateException(message);
    });

    /** Emits n items, then halts its JVM with {@code status}. */
    public static final StreamMo2<Integer, Integer, Integer> haltAfter = emitting((Integer n, Integer status,
            Emitter<Integer> out) -> {
        for (int i = 0; i < n; i++) {
            out.emit(i);
        }
        System.out.println("halting after " + n + " items");
        System.out.flush();
        Runtime.getRuntime().halt(status);
    });

    /** Strings of growing length, to cross in messages of several sizes. */
    public static final StreamMo2<Integer, Integer, String> strings = emitting((Integer n, Integer length,
            Emitter<String> out) -> {
        for (int i = 0; i < n; i++) {
            out.emit(i + ":" + "x".repeat(i % length));
        }
    });

    /** Emits 0 … n-1. */
    public static final StreamMo2<Integer, Integer, Integer> range = emitting((Integer from, Integer n, Emitter<Integer> out) -> {
        for (int i = from; i < from + n; i++) {
            out.emit(i);
        }
    });

    /** Count, sum and sum of squares of the items it is given: what a lost or duplicated item would change. */
    public static final Mo1<Iterable<Integer>, long[]> stats = mo(items -> {
        long[] totals = new long[3];
        for (int item : items) {
            totals[0]++;
            totals[1] += item;
            totals[2] += (long) item * item;
        }
        return totals;
    });

    /** Takes the first n items, then returns without reading the rest. */
    public static final Mo2<Iterable<Integer>, Integer, Integer> firstSum = mo((items, n) -> {
        int sum = 0;
        int taken = 0;
        for (java.util.Iterator<Integer> it = items.iterator(); taken < n && it.hasNext(); taken++) {
            sum += it.next();
        }
        return sum;
    });

    /** {@code n} numbers, then an item no pool registers. */
    public static final StreamMo1<Integer, Object> numbersThenUnregistered = emitting((Integer n, Emitter<Object> out) -> {
        for (int i = 0; i < n; i++) {
            out.emit(i);
        }
        out.emit(new Jobs.Unregistered("item"));
    });

    /** An item no pool registers. */
    public static final StreamMo0<Jobs.Unregistered> unregistered = emitting(out -> out.emit(new Jobs.Unregistered("item")));
}
