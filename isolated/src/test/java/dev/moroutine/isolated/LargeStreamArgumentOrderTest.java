package dev.moroutine.isolated;

import static dev.moroutine.stream.Streaming.channel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.stream.Channel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stream arguments of large, distinct items, many times the request ring: items that find the ring
 * full are carried to the pump's next pass, and each still reaches its function once, in order.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LargeStreamArgumentOrderTest {

    private static List<String> items(int n) {
        return IntStream.range(0, n).mapToObj(i -> i + "x".repeat(30_000 + i % 7_000)).toList();
    }

    private static String expected(int n) {
        StringBuilder numbers = new StringBuilder();
        for (int i = 0; i < n; i++) {
            numbers.append(i).append(',');
        }
        return numbers.toString();
    }

    @Test
    void aChannelOfLargeItemsReachesItsTaskWholeAndInOrder() {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults())) {
            for (int round = 0; round < 3; round++) {
                assertEquals(expected(300), pool.run(OrderJobs.numbers.call(channel(items(300)))), "round " + round);
            }
        }
    }

    @Test
    void aChannelOfLargeItemsSharedByThreeWorkerJvmsGivesEachItemToOneInOrder() throws Exception {
        int n = 600;
        try (Pool pool = Isolated.workers(3, IsolatedOptions.defaults())) {
            Channel<String> shared = channel(items(n));
            // One batch, so that the three join before the first takes an item: a reader submitted on its own after
            // the others had drained the channel would be refused (it ended), as the README says.
            List<String> readers = pool.runAll(List.of(OrderJobs.numbers.call(shared), OrderJobs.numbers.call(shared),
                    OrderJobs.numbers.call(shared)));
            boolean[] seen = new boolean[n];
            for (String reader : readers) {
                int last = -1;
                for (String number : reader.split(",")) {
                    if (number.isEmpty()) {
                        continue;
                    }
                    int item = Integer.parseInt(number);
                    assertTrue(item > last, "a reader got " + item + " after " + last);
                    assertTrue(!seen[item], "item " + item + " went to two readers");
                    seen[item] = true;
                    last = item;
                }
            }
            for (int i = 0; i < n; i++) {
                assertTrue(seen[i], "item " + i + " was lost");
            }
        }
    }
}
