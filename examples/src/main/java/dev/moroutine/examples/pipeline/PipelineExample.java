package dev.moroutine.examples.pipeline;

import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.pipeline.Stages.*;

import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A streaming pipeline across dedicated workers: {@code square.call(twice.call(generate.call(5)))}
 * runs each stage on its own worker; items flow from stage to stage with backpressure as the main
 * thread consumes the last one.
 */
public final class PipelineExample {

    private PipelineExample() {}

    /**
     * Prints the squares of the doubles of 1 to 5.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        List<String> results = new ArrayList<>();
        try (LiveStream<String> squares = square.call(twice.call(generate.call(5))).join()) {
            for (String line : squares) {
                System.out.println(line);
                results.add(line.substring(0, line.indexOf(' ')));
            }
        }
        check(results.equals(List.of("4", "16", "36", "64", "100")), "(2n)^2 for n = 1..5, in order");
    }
}
