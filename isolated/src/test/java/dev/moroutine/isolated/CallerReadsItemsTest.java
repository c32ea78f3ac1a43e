package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Callers waiting for tasks queued behind a stream on the same worker JVM read the reply ring
 * while the pump sleeps, and so hand the stream's items to its consumer, each caller a batch at
 * a time, the pump others: every item arrives, in order, and every caller gets its answer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallerReadsItemsTest {

    @Test
    void itemsHandedOverByWaitingCallersAndThePumpAllArriveInOrder() throws Exception {
        int n = 300_000;
        int callers = 3;
        try (Pool pool = Isolated.workers(1); ExecutorService threads = Executors.newFixedThreadPool(callers)) {
            for (int round = 0; round < 3; round++) {
                try (LiveStream<Integer> items = pool.run(Jobs.countUp.call(n))) {
                    var it = items.iterator();
                    assertEquals(0, it.next());
                    List<Future<Integer>> answers = new ArrayList<>();
                    int r = round;
                    for (int c = 0; c < callers; c++) {
                        int caller = c;
                        answers.add(threads.submit(() -> pool.run(Jobs.add.call(r, caller)))); // queued behind the stream
                    }
                    for (int expected = 1; expected < n; expected++) {
                        assertEquals(expected, it.next(), "round " + round);
                    }
                    for (int c = 0; c < callers; c++) {
                        assertEquals(round + c, answers.get(c).get(60, TimeUnit.SECONDS));
                    }
                }
            }
        }
    }
}
