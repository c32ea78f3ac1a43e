package dev.moroutine.examples.nonblocking;

import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.nonblocking.Heavy.countPrimes;

import java.util.BitSet;
import java.util.concurrent.CompletableFuture;

/**
 * The main thread stays responsive during heavy computation: {@code .future()} starts the call on
 * a worker and returns at once, so the main thread keeps ticking until the result arrives.
 */
public final class NonBlockingExample {

    private static final int LIMIT = 3_000_000;

    private NonBlockingExample() {}

    /**
     * Counts primes on a worker while the main thread ticks every 100 ms.
     *
     * @param args ignored
     * @throws Exception if the computation fails or the main thread is interrupted
     */
    public static void main(String[] args) throws Exception {
        CompletableFuture<Integer> result = countPrimes.call(LIMIT).future();

        int ticks = 0;
        System.out.print("main thread ticking while a worker counts primes:");
        while (!result.isDone()) {
            Thread.sleep(100);
            ticks++;
            System.out.print(" " + ticks);
        }
        System.out.println();

        int count = result.get();
        int expected = sieveCount(LIMIT);
        System.out.printf("ticks: %d%n", ticks);
        System.out.printf("primes below %,d: %,d (a sieve on the main thread says %,d)%n", LIMIT, count, expected);
        check(ticks > 0 && count == expected, ticks + " ticks while waiting, result matches the sieve");
    }

    /** The same count by the sieve of Eratosthenes: fast, to check the slow answer. */
    private static int sieveCount(int limit) {
        BitSet composite = new BitSet(limit);
        for (int i = 2; (long) i * i < limit; i++) {
            if (!composite.get(i)) {
                for (int j = i * i; j < limit; j += i) composite.set(j);
            }
        }
        return limit - 2 - composite.cardinality();
    }
}
