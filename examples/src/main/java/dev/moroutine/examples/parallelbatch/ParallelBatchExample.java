package dev.moroutine.examples.parallelbatch;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.parallelbatch.Batch.countPrimes;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.examples.Numbers;
import java.util.ArrayList;
import java.util.List;

/**
 * Sequential vs parallel batch processing: the same chunks of CPU-bound work, first one after the
 * other on the main thread, then spread over a pool of one worker per processor with
 * {@code pool.runAll(…)}, which returns the results in order.
 */
public final class ParallelBatchExample {

    private static final int CHUNKS = 8;
    private static final int CHUNK_SIZE = 250_000;

    private ParallelBatchExample() {}

    /**
     * Runs the batch both ways and compares.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        long start = System.nanoTime();
        List<Integer> sequential = new ArrayList<>();
        for (int c = 0; c < CHUNKS; c++) {
            sequential.add(Numbers.primesBetween(c * CHUNK_SIZE, (c + 1) * CHUNK_SIZE));
        }
        long sequentialNanos = System.nanoTime() - start;
        System.out.printf("batch: %d chunks of %,d numbers; primes per chunk %s%n", CHUNKS, CHUNK_SIZE, sequential);
        System.out.printf("sequential, main thread: %5d ms%n", sequentialNanos / 1_000_000);

        List<Task<Integer>> tasks = new ArrayList<>();
        for (int c = 0; c < CHUNKS; c++) {
            tasks.add(countPrimes.call(c * CHUNK_SIZE, (c + 1) * CHUNK_SIZE));
        }
        List<Integer> parallel;
        try (Pool pool = workers()) {
            start = System.nanoTime();
            parallel = pool.runAll(tasks);
            long parallelNanos = System.nanoTime() - start;
            System.out.printf("parallel, %d workers:    %5d ms%n", pool.workers().size(), parallelNanos / 1_000_000);
            System.out.printf("speed-up: %.2fx%n", (double) sequentialNanos / parallelNanos);
        }
        check(parallel.equals(sequential), "parallel results equal sequential results, "
                + sequential.stream().mapToInt(Integer::intValue).sum() + " primes in all");
    }
}
