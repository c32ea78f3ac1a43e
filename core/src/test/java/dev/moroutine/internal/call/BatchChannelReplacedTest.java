package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.channel;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Balancer;
import dev.moroutine.Mo1;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * runAll reserves every consumer end of a channel before the first attaches, so that none finds the
 * channel ended by another; a call of the batch placed again (its chosen worker left the pool before
 * it was queued) must keep that promise too.
 */
@Timeout(60)
class BatchChannelReplacedTest {

    static final Mo1<Iterable<Integer>, Integer> count = mo(items -> {
        int n = 0;
        for (int ignored : items) n++;
        return n;
    });

    @Test
    void aBatchCallPlacedAgainStillConsumesAChannelThatAnotherEndOfTheBatchDrained() {
        Channel<Integer> empty = channel(List.of());
        AtomicReference<WorkerPool> self = new AtomicReference<>();
        AtomicBoolean leftOnce = new AtomicBoolean();
        // The batch's channel end attached first and the channel ended (nothing to send); then the member chosen
        // for the call leaves between the balancer's choice and the dispatch, as in WorkerPoolLeavingTest.
        Balancer firstChoiceLeaves = (workers, task) -> {
            WorkerHandle chosen = workers.get(0);
            if (leftOnce.compareAndSet(false, true)) {
                try (LiveStream<Integer> probe = empty.join()) {
                    probe.count(); // its end comes once a pull has found the source exhausted
                } catch (IllegalStateException alreadyEnded) {
                    // ended already
                }
                self.get().removeWorker((Worker) chosen);
                ((Worker) chosen).forceStop("it left");
            }
            return chosen;
        };
        try (WorkerPool pool = new WorkerPool(2, firstChoiceLeaves, null, null, 16, null, WorkerPool.THREADS)) {
            self.set(pool);
            List<Object> results = assertDoesNotThrow(() -> pool.<Object>runAll(List.of(empty, count.call(empty))),
                    "a batch whose consumers were all reserved before the first attached failed for an ended channel");
            try (LiveStream<?> end = (LiveStream<?>) results.get(0)) {
                assertEquals(0, end.count());
            }
            assertEquals(0, results.get(1));
        }
    }
}
