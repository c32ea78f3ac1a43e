package dev.moroutine.stream;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.testing.NoLeakedWorkers;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** How the stream endpoints of a task are bound on the worker that runs it, task-args included. */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(120)
class EndpointBindingTest {

    static final StreamMo1<Integer, Integer> upTo = streaming(n -> IntStream.range(0, n).boxed());
    static final Mo1<Iterable<Integer>, Integer> sum = mo(EndpointBindingTest::total);
    static final Mo1<Integer, Integer> plusOne = mo(x -> x + 1);

    private static int total(Iterable<Integer> items) {
        int total = 0;
        for (int x : items) total += x;
        return total;
    }

    /**
     * A task-arg that consumes a channel whose source runs on the same worker would wait for itself:
     * it must be refused there, as a task or a join() on that worker is, instead of hanging the worker.
     */
    @Test
    void aTaskArgConsumingAChannelOnTheWorkerOfItsSourceFailsInsteadOfHanging() {
        for (int round = 0; round < 3; round++) {
            try (Pool pool = workers(1, PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(1)))) {
                WorkerHandle only = pool.workers().get(0);
                Channel<Integer> channel = channel(Streaming.assign(only, upTo.call(100)), 4);
                TaskFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                        () -> assertThrows(TaskFailedException.class, () -> pool.run(plusOne.call(sum.call(channel)))),
                        "the task-arg waited for the channel's source, queued behind it on its own worker");
                Throwable refused = e.getCause().getCause();
                assertInstanceOf(IllegalStateException.class, refused, e.toString());
                assertTrue(refused.getMessage().startsWith(channel + " cannot feed task " + sum), refused.getMessage());
                assertTrue(refused.getMessage().contains("it would wait for itself"), refused.getMessage());
            }
        }
    }
}
