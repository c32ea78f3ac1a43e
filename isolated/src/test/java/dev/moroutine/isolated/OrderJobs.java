package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.emitting;

import dev.moroutine.Mo1;
import dev.moroutine.Signal;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.stream.StreamMo2;
import java.io.Externalizable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Moroutines of the item-order and answer-order tests; loaded in the worker JVMs too, so nothing here touches JUnit. */
public final class OrderJobs {

    private OrderJobs() {}

    /** Emits {@code n} strings of 60,000 characters, then returns at once: more than the reply ring holds. */
    public static final StreamMo1<Integer, String> big = emitting((Integer n, Emitter<String> out) -> {
        for (int i = 0; i < n; i++) {
            out.emit(i + "x".repeat(60_000));
        }
    });

    /** The numbers before the first 'x' of each item, in the order read: what a lost, repeated or reordered item changes. */
    public static final Mo1<Iterable<String>, String> numbers = mo(items -> {
        StringBuilder read = new StringBuilder();
        for (String item : items) {
            read.append(item, 0, item.indexOf('x')).append(',');
        }
        return read.toString();
    });

    /** Appends a line to a file, so that a test can count its runs, then halts its JVM. */
    public static final Mo1<String, Integer> recordThenHalt = mo(file -> {
        Files.writeString(Path.of(file), "ran\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Runtime.getRuntime().halt(3);
        return 0;
    });

    /** An item that never finishes crossing: encoding it holds its stream's forwarder until the JVM dies (or interrupts it). */
    public static final class Stall implements Externalizable {
        private static final long serialVersionUID = 1L;

        /** For the codec. */
        public Stall() {}

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                throw new InterruptedIOException("stalled");
            }
        }

        @Override
        public void readExternal(ObjectInput in) {}
    }

    /** Records its run, emits "first" then a {@link Stall}, and returns: its run ends, its items never all cross. */
    public static final StreamMo1<String, Object> recordThenStall = emitting((String file, Emitter<Object> out) -> {
        Files.writeString(Path.of(file), "ran\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        out.emit("first");
        out.emit(new Stall());
    });

    /** Appends a line to a file, so that a test can count its runs, then emits 0 .. n-1. */
    public static final StreamMo2<String, Integer, Integer> recordThenCount = emitting((String file, Integer n, Emitter<Integer> out) -> {
        Files.writeString(Path.of(file), "ran\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        for (int i = 0; i < n; i++) {
            out.emit(i);
        }
    });

    /**
     * Reads the items of {@link #big} on another thread.
     *
     * @param items the stream
     * @return how many items came, all in order; fails at the first item out of order
     */
    static CompletableFuture<Integer> readBig(Iterable<String> items) {
        return CompletableFuture.supplyAsync(() -> {
            int n = 0;
            for (String item : items) {
                if (!item.startsWith(n + "x")) {
                    throw new IllegalStateException("item " + n + " out of order: " + item.substring(0, Math.min(20, item.length())));
                }
                n++;
            }
            return n;
        });
    }

    /**
     * Emits an item that cannot cross (its forwarder fails the task at once), then goes on running
     * for {@code millis} ms, ignoring interrupts, and returns.
     */
    public static final StreamMo1<Integer, Object> refusedThenRun = emitting((Integer millis, Emitter<Object> out) -> {
        out.emit(new Jobs.Unregistered("cannot cross"));
        busy(millis);
    });

    /** As {@link #refusedThenRun}, then halts its JVM. */
    public static final StreamMo1<Integer, Object> refusedThenHalt = emitting((Integer millis, Emitter<Object> out) -> {
        out.emit(new Jobs.Unregistered("cannot cross"));
        busy(millis);
        Runtime.getRuntime().halt(3);
    });

    /** An item whose encoding overflows the stack (a structure nested too deeply, say): an Error, not an exception. */
    public static final class Bottomless implements Externalizable {
        private static final long serialVersionUID = 1L;

        /** For the codec. */
        public Bottomless() {}

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeInt(1);
            writeExternal(out);
        }

        @Override
        public void readExternal(ObjectInput in) {}
    }

    /** An item whose encoding needs a class this JVM lacks: a {@link LinkageError}, not an exception. */
    public static final class Unlinked implements Externalizable {
        private static final long serialVersionUID = 1L;

        /** For the codec. */
        public Unlinked() {}

        @Override
        public void writeExternal(ObjectOutput out) {
            throw new NoClassDefFoundError("com/example/Missing");
        }

        @Override
        public void readExternal(ObjectInput in) {}
    }

    /** An item that crosses from the caller but cannot be decoded in the worker JVM: a {@link LinkageError} there. */
    public static final class UnreadableThere implements Externalizable {
        private static final long serialVersionUID = 1L;

        /** For the codec. */
        public UnreadableThere() {}

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeInt(1);
        }

        @Override
        public void readExternal(ObjectInput in) {
            throw new NoClassDefFoundError("com/example/MissingThere");
        }
    }

    /** Counts the items of a stream argument of any type. */
    public static final Mo1<Iterable<Object>, Integer> countAll = mo(items -> {
        int n = 0;
        for (Object ignored : items) {
            n++;
        }
        return n;
    });

    /** Emits "first", then a {@link Bottomless} (or, with 1, an {@link Unlinked}), and returns. */
    public static final StreamMo1<Integer, Object> firstThenBottomless = emitting((Integer which, Emitter<Object> out) -> {
        out.emit("first");
        out.emit(which == 1 ? new Unlinked() : new Bottomless());
    });

    /** Emits an item that cannot cross, strings until an emit fails, writes {@code file}, then overflows its worker thread's stack, which dies. */
    public static final StreamMo1<String, Object> refusedThenOverflow = emitting((String file, Emitter<Object> out) -> {
        refuse(out, file);
        dive(0);
    });

    /**
     * Emits an item that cannot cross, then items until an emit fails (its forwarder has failed the
     * stream), writes "failed" to {@code file}, then waits up to 30 s for an interrupt and returns.
     */
    public static final StreamMo1<String, Object> refusedThenAwaitInterrupt = emitting((String file, Emitter<Object> out) -> {
        refuse(out, file);
        try {
            new CountDownLatch(1).await(30, TimeUnit.SECONDS);
        } catch (InterruptedException stopped) {
            // cancelled: the run ends now
        }
    });

    /** As {@link #refusedThenAwaitInterrupt}, but waits up to 30 s for its signal to fire instead (not for an interrupt). */
    public static final StreamMo2<String, Signal, Object> refusedThenAwaitSignal = emitting((String file, Signal signal,
            Emitter<Object> out) -> {
        refuse(out, file);
        CountDownLatch fired = new CountDownLatch(1);
        Signal.Registration registration = signal.onAbort(fired::countDown);
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (fired.getCount() > 0 && System.nanoTime() < end) {
                try {
                    fired.await(end - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException ignored) {
                    // only the signal ends the wait
                }
            }
        } finally {
            registration.close();
        }
    });

    /** Emits an item that cannot cross, then strings until an emit fails (its forwarder failed the stream), then writes "failed" to {@code file}. */
    private static void refuse(Emitter<Object> out, String file) throws IOException {
        out.emit(new Jobs.Unregistered("cannot cross"));
        try {
            for (;;) {
                out.emit("after");
            }
        } catch (RuntimeException failed) {
            Files.writeString(Path.of(file), "failed\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    private static int dive(int depth) {
        return dive(depth + 1) + 1;
    }

    /** Runs for about {@code millis} ms: work, not a wait for something. */
    private static void busy(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
