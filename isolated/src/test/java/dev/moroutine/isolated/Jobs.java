package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** Moroutines the tests run on isolated workers; loaded in the worker JVMs too, so nothing here touches JUnit. */
public final class Jobs {

    private Jobs() {}

    public static final Mo1<Integer, Integer> square = mo(x -> x * x);

    public static final Mo2<Integer, Integer, Integer> add = mo((a, b) -> a + b);

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

    /** Returns an instance of a class that no pool registers. */
    public static final Mo0<Object> unregisteredResult = mo(() -> new Point(1, 2));

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
}
