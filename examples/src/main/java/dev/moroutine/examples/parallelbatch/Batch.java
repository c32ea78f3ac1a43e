package dev.moroutine.examples.parallelbatch;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo2;

/** Holds the batch's unit of work, as a plain method and as a moroutine of that method. */
public final class Batch {

    private Batch() {}

    /** {@link #primesBetween} on a worker. */
    public static final Mo2<Integer, Integer, Integer> countPrimes = mo(Batch::primesBetween);

    /**
     * Counts the primes in {@code [from, to)} by trial division.
     *
     * @param from the first number, inclusive
     * @param to the last number, exclusive
     * @return how many of them are prime
     */
    public static int primesBetween(int from, int to) {
        int count = 0;
        for (int n = Math.max(from, 2); n < to; n++) {
            boolean prime = true;
            for (int i = 2; i * i <= n; i++) {
                if (n % i == 0) {
                    prime = false;
                    break;
                }
            }
            if (prime) count++;
        }
        return count;
    }
}
