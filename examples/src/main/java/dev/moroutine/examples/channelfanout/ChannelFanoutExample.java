package dev.moroutine.examples.channelfanout;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.channelfanout.Work.*;
import static dev.moroutine.stream.Streaming.*;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Fan-out of one source to several workers: the same {@link Channel} is given to a task pinned to
 * each worker, and every item goes to exactly one of them. Each consumer pulls its next items from
 * the source when it has used up the last, so faster ones get more.
 */
public final class ChannelFanoutExample {

    private ChannelFanoutExample() {}

    /**
     * Spreads 10,000 numbers over four workers.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        int total = 10_000;
        Channel<Integer> channel = channel(numbers.call(total));
        List<List<Integer>> shares;
        try (Pool pool = workers(4)) {
            List<Task<List<Integer>>> consumers = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {
                consumers.add(assign(worker, take.call(channel)));
            }
            shares = pool.runAll(consumers);
        }
        TreeSet<Integer> union = new TreeSet<>();
        int received = 0;
        for (int i = 0; i < shares.size(); i++) {
            System.out.printf("worker %d took %,d items%n", i, shares.get(i).size());
            union.addAll(shares.get(i));
            received += shares.get(i).size();
        }
        check(received == total && union.size() == total && union.first() == 0 && union.last() == total - 1,
                String.format("%,d items received, %,d distinct, 0..%,d: no duplicates, no gaps", received, union.size(), total - 1));
    }
}
