package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.streaming;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Signal;
import dev.moroutine.stream.StreamMo1;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/** Moroutines the tests run on isolated workers; loaded in the worker JVMs too, so nothing here touches JUnit. */
public final class Jobs {

    private Jobs() {}

    public static final Mo1<Integer, Integer> square = mo(x -> x * x);

    public static final Mo2<Integer, Integer, Integer> add = mo((a, b) -> a + b);

    /** The string backwards: an answer as long as the argument. */
    public static final Mo1<String, String> reverse = mo(text -> new StringBuilder(text).reverse().toString());

    /** The process the task runs in. */
    public static final Mo0<Long> pid = mo(() -> ProcessHandle.current().pid());

    public static final Mo1<String, String> fail = mo(message -> {
        throw new IllegalArgumentException(message);
    });

    /** A point, registered with the pools that pass it. */
    public record Point(int x, int y) {}

    public static final Mo1<Point, Point> mirror = mo(p -> new Point(p.y(), p.x()));

    /** Takes anything, to see what crosses. */
    public static final Mo1<Object, String> describe = mo(value -> String.valueOf(value));

    /** Waits, in the worker JVM, for its signal to fire, and returns the reason it fired with. */
    public static final Mo1<Signal, String> awaitAbort = mo(signal -> {
        CountDownLatch fired = new CountDownLatch(1);
        Signal.Registration registration = signal.onAbort(fired::countDown);
        boolean firedInTime = fired.await(60, TimeUnit.SECONDS);
        registration.close();
        return firedInTime ? signal.reason() : "never fired";
    });

    /** Whether its signal had fired when the task began. */
    public static final Mo1<Signal, String> abortedAtStart = mo(signal -> signal.aborted() ? "fired: " + signal.reason() : "live");

    /** No pool registers it. */
    public record Unregistered(String name) {}

    public static final Mo0<Object> unregisteredResult = mo(() -> new Unregistered("result"));

    public static final StreamMo1<Integer, Integer> countUp = streaming(n -> IntStream.range(0, n).boxed());

    public static final Mo1<Iterable<Integer>, Integer> count = mo(items -> {
        int n = 0;
        for (Integer ignored : items) {
            n++;
        }
        return n;
    });

    /** A task-arg value that stays in its worker JVM; closing it leaves a file behind. */
    public static final class Handle implements AutoCloseable {
        private static final AtomicInteger MADE = new AtomicInteger();
        private final int number = MADE.incrementAndGet();
        private final Path closedMarker;
        private int uses;

        Handle(Path closedMarker) {
            this.closedMarker = closedMarker;
        }

        @Override
        public void close() throws IOException {
            Files.writeString(closedMarker, "closed " + number + " after " + uses + " uses in " + ProcessHandle.current().pid());
        }
    }

    public static final Mo1<String, Handle> open = mo(marker -> new Handle(Path.of(marker)));

    public static final Mo1<Handle, String> use = mo(handle -> handle.number + "/" + (++handle.uses) + "/"
            + ProcessHandle.current().pid());

    /**
     * Says it started by connecting to the test's port, then waits until the test writes a byte or
     * closes the connection: a gate across processes that needs no sleeping.
     */
    public static final Mo1<Integer, Integer> block = mo(port -> {
        System.out.println("blocking on port " + port);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port); InputStream in = socket.getInputStream()) {
            socket.getOutputStream().write(1);
            in.read();
        }
        return port;
    });

    public static final Mo1<Integer, Integer> exit = mo(status -> {
        System.out.println("exiting with " + status);
        System.exit(status);
        return status;
    });

    public static final Mo1<Integer, Integer> halt = mo(status -> {
        System.out.println("halting with " + status);
        Runtime.getRuntime().halt(status);
        return status;
    });

    /** Runs until its JVM is killed: it ignores interrupts. */
    public static final Mo0<Integer> spin = mo(() -> {
        for (long i = 0; ; i++) {
            if (i == Long.MAX_VALUE) {
                return 0;
            }
        }
    });

    /** Appends its number to a file, once per run, so that a test can count the runs. */
    public static final Mo2<String, Integer, Integer> record = mo((file, number) -> {
        Files.writeString(Path.of(file), number + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return number;
    });

    /** Says it started, like {@link #block}, then waits until it is interrupted. */
    public static final Mo1<Integer, String> awaitInterrupt = mo(port -> {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.getOutputStream().write(1);
        }
        try {
            new CountDownLatch(1).await();
            return "never";
        } catch (InterruptedException e) {
            System.out.println("interrupted in " + ProcessHandle.current().pid());
            throw e;
        }
    });

    /** An exception that the caller's side cannot make again: no constructor takes a message. */
    public static final class OddException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public OddException(int code) {
            super("odd " + code);
        }
    }

    public static final Mo0<String> odd = mo(() -> {
        throw new OddException(42);
    });

    public static final Mo1<String, String> print = mo(line -> {
        System.out.println(line);
        return line;
    });
}
