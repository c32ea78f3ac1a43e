package dev.moroutine.examples.primes;

import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.primes.Primes.isPrime;

/**
 * CPU-bound prime checking on a dedicated worker: {@code isPrime.call(n).join()} runs the call on
 * {@code isPrime}'s own worker thread, started on first use, and waits for the answer. No pool needed.
 */
public final class PrimesExample {

    private PrimesExample() {}

    /**
     * Checks a few numbers, including the large prime 999,999,937.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        long[] numbers = {2, 91, 7_919, 1_000_000, 2_147_483_647, 999_999_937};
        boolean[] expected = {true, false, true, false, true, true};

        int right = 0;
        for (int i = 0; i < numbers.length; i++) {
            boolean prime = isPrime.call(numbers[i]).join();
            System.out.printf("isPrime(%,d) = %b (expected %b)%n", numbers[i], prime, expected[i]);
            if (prime == expected[i]) right++;
        }
        check(right == numbers.length, right + " of " + numbers.length + " answers as expected");
    }
}
