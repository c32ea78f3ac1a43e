package dev.moroutine.examples.parallelbatch;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo2;
import dev.moroutine.examples.Numbers;

/** Holds the batch's unit of work as a moroutine. */
public final class Batch {

    private Batch() {}

    /** Counts the primes in {@code [from, to)}: {@link Numbers#primesBetween} on a worker. */
    public static final Mo2<Integer, Integer, Integer> countPrimes = mo(Numbers::primesBetween);
}
