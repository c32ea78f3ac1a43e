package dev.moroutine.examples.channelfanout;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;

import dev.moroutine.Mo1;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo1;
import java.util.List;
import java.util.stream.Stream;

/** A producer of numbers and a consumer that keeps the ones it receives. */
public final class Work {

    private Work() {}

    /** Emits 0 to {@code n - 1}. */
    public static final StreamMo1<Integer, Integer> numbers = emitting((Integer n, Emitter<Integer> out) -> {
        for (int i = 0; i < n; i++) out.emit(i);
    });

    /** Takes items from its input until it ends, and returns them. */
    public static final Mo1<Stream<Integer>, List<Integer>> take = mo(Stream::toList);
}
