package dev.moroutine.examples.nonblocking;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;
import dev.moroutine.examples.Numbers;

/** Holds a deliberately slow moroutine. */
public final class Heavy {

    private Heavy() {}

    /** Counts the primes below {@code limit} by trial division: most of a second for a few million. */
    public static final Mo1<Integer, Integer> countPrimes = mo(limit -> Numbers.primesBetween(2, limit));
}
