package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;

public final class Primes {
    public static final Mo1<Long, Boolean> isPrime = mo(n -> {
        if (n < 2) return false;
        for (long i = 2; i * i <= n; i++) {
            if (n % i == 0) return false;
        }
        return true;
    });
}
