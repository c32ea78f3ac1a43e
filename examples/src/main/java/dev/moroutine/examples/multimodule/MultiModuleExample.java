package dev.moroutine.examples.multimodule;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.multimodule.Arithmetic.add;
import static dev.moroutine.examples.multimodule.Greetings.greet;

import dev.moroutine.Pool;

/**
 * Moroutines from several classes on one worker: a pool is not tied to any moroutine, so a pool of
 * one worker runs {@link Arithmetic#add} and {@link Greetings#greet} on the same thread. Each
 * moroutine is identified by its class and field, {@code Arithmetic#add}.
 */
public final class MultiModuleExample {

    private MultiModuleExample() {}

    /**
     * Runs a moroutine of each class on a one-worker pool.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        try (Pool pool = workers(1)) {
            Result<Integer> sum = pool.run(add.call(20, 22));
            Result<String> greeting = pool.run(greet.call("moroutine"));

            System.out.printf("%s(20, 22) = %s%n    ran on %s%n", add.id(), sum.value(), sum.thread());
            System.out.printf("%s(\"moroutine\") = %s%n    ran on %s%n", greet.id(), greeting.value(), greeting.thread());

            String worker = pool.workers().getFirst().name();
            check(sum.value() == 42 && greeting.value().equals("Hello, moroutine!")
                    && sum.thread().equals(worker) && greeting.thread().equals(worker),
                    "both results right, both ran on the pool's one worker " + worker);
        }
    }
}
