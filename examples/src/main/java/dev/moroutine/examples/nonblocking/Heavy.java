package dev.moroutine.examples.nonblocking;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;

/** Holds a deliberately slow moroutine. */
public final class Heavy {

    private Heavy() {}

    /** Counts the primes below {@code limit} by trial division: pure CPU work, most of a second for a few million. */
    public static final Mo1<Integer, Integer> countPrimes = mo(limit -> {
        int count = 0;
        for (int n = 2; n < limit; n++) {
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
    });
}
