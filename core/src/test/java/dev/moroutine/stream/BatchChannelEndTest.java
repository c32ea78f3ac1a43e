package dev.moroutine.stream;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Balancer;
import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A channel given to runAll is one of the batch's consumers from the start, as it was when its end
 * attached while the batch was built: another consumer of the batch that closes early must not end
 * the channel under it.
 */
@Timeout(120)
class BatchChannelEndTest {

    /** Counted down when the endless source's function ends: the channel stopped it, every attached consumer closed. */
    static final CountDownLatch SOURCE_STOPPED = new CountDownLatch(1);

    static final StreamMo1<Integer, Integer> endless = emitting((Integer from, Emitter<Integer> out) -> {
        try {
            for (int i = from; ; i++) {
                out.emit(i);
            }
        } finally {
            SOURCE_STOPPED.countDown();
        }
    });
    /** As {@link #endless}, without the latch: the stress test's source, so that it never releases the first test's hook. */
    static final StreamMo1<Integer, Integer> countless = emitting((Integer from, Emitter<Integer> out) -> {
        for (int i = from; ; i++) {
            out.emit(i);
        }
    });
    /** Takes nothing of its stream: its end closes as its run ends. */
    static final Mo1<Stream<Integer>, Integer> takesNothing = mo(in -> 0);
    static final Mo1<Integer, Integer> same = mo(x -> x);

    @Test
    void aBatchsChannelEndGetsTheItemsAnEarlyClosingConsumerOfTheBatchLeaves() throws Exception {
        // The balancer only widens the window between two sends of runAll (a caller preempted there does the same):
        // it places `same` once the channel has stopped its source, or after 1 s if it never does.
        Balancer slowForSame = (workers, task) -> {
            if (isTask(same, task)) {
                try {
                    SOURCE_STOPPED.await(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return workers.get(1);
            }
            return workers.get(0);
        };
        try (Pool pool = workers(2, PoolOptions.defaults().withBalancer(slowForSame))) {
            Channel<Integer> shared = channel(endless.call(0));
            List<Object> results = pool.runAll(List.of(takesNothing.call(shared), same.call(7), shared));
            assertEquals(0, results.get(0));
            assertEquals(7, results.get(1));
            @SuppressWarnings("unchecked")
            LiveStream<Integer> end = (LiveStream<Integer>) results.get(2);
            try (end) {
                assertEquals(10, end.limit(10).count(), "the channel's end of the batch got no items of an endless source:"
                        + " the batch's other consumer closed before this end attached, which ended the channel (source stopped: "
                        + (SOURCE_STOPPED.getCount() == 0) + ")");
            }
        }
    }

    /** No hook this time: short consumers closing while the batch is still being sent, round after round. */
    @Test
    void underLoadNoBatchEndFindsItsChannelEndedByAnotherOfTheBatch() {
        try (Pool pool = workers(2)) {
            for (int round = 0; round < 50; round++) {
                Channel<Integer> shared = channel(countless.call(0));
                List<Task<?>> batch = new ArrayList<>();
                batch.add(takesNothing.call(shared));
                batch.add(takesNothing.call(shared));
                for (int i = 0; i < 500; i++) {
                    batch.add(same.call(i));
                }
                batch.add(shared);
                List<Object> results = pool.runAll(batch);
                @SuppressWarnings("unchecked")
                LiveStream<Integer> end = (LiveStream<Integer>) results.get(results.size() - 1);
                try (end) {
                    assertEquals(10, end.limit(10).count(), "round " + round + ": the batch's channel end got no items");
                }
            }
        }
    }
}
