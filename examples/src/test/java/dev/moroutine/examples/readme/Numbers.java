package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;

import dev.moroutine.Mo1;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.StreamMo1;
import java.util.stream.IntStream;
import java.util.stream.Stream;

public final class Numbers {
    public static final StreamMo1<Integer, Integer> countUp = streaming(n -> IntStream.range(0, n).boxed());

    public static final StreamMo1<Integer, Integer> countDown = emitting((Integer n, Emitter<Integer> out) -> {
        for (int i = n; i > 0; i--) out.emit(i); // blocks while 256 items are in flight
    });

    public static final StreamMo1<Stream<Integer>, Integer> twice = streaming(in -> in.map(x -> 2 * x));

    public static final Mo1<Iterable<Integer>, Integer> sum = mo(items -> {
        int total = 0;
        for (int x : items) total += x;
        return total;
    });

    public static final Mo1<Integer, Integer> slowSquare = mo(x -> x * x);
}
