package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.emitting;

import dev.moroutine.Mo1;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo1;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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
}
