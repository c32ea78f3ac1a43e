package dev.moroutine.examples.pipeline;

import static dev.moroutine.stream.Streaming.*;

import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo1;
import java.util.stream.Stream;

/** Three streaming moroutines, each a stage of a pipeline; a stage's input is the previous stage's stream. */
public final class Stages {

    private Stages() {}

    /** Emits 1 to {@code n}: a push-style producer. */
    public static final StreamMo1<Integer, Integer> generate = emitting((Integer n, Emitter<Integer> out) -> {
        for (int i = 1; i <= n; i++) out.emit(i);
    });

    /** Doubles every item, lazily: a pull-style stage over its input stream. */
    public static final StreamMo1<Stream<Integer>, Integer> twice = streaming(in -> in.map(x -> 2 * x));

    /** Squares every item and says which thread did it. */
    public static final StreamMo1<Stream<Integer>, String> square = streaming(in -> in.map(x ->
            x * x + " (squared on " + Thread.currentThread().getName().replaceAll(".*#", "") + ")"));
}
