package dev.moroutine.examples.primes;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;

/** Holds the {@code isPrime} moroutine. Like every moroutine holder, its static initialisation has no side effects. */
public final class Primes {

    private Primes() {}

    /** Whether {@code n} is prime, by trial division: CPU-bound, so worth a worker of its own. */
    public static final Mo1<Long, Boolean> isPrime = mo(n -> {
        if (n < 2) return false;
        for (long i = 2; i * i <= n; i++) {
            if (n % i == 0) return false;
        }
        return true;
    });
}
