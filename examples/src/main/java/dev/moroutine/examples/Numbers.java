package dev.moroutine.examples;

/** Plain CPU-bound arithmetic that several examples run on workers. */
public final class Numbers {

    private Numbers() {}

    /**
     * Counts the primes in {@code [from, to)} by trial division: deliberately slow, pure CPU work.
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
