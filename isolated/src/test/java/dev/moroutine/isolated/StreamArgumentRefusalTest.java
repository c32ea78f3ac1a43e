package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.stream.Streaming.channel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.TaskFailedException;
import dev.moroutine.stream.StreamTask;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A stream argument that cannot be opened, or whose item cannot be decoded, fails its own task only: the worker JVM and its pump go on. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamArgumentRefusalTest {

    /**
     * A stream argument whose producer cannot be started (its assigned worker's pool is closed):
     * the feeder's open throws, the task fails, and the worker must go on. The pump's settle()
     * then stops the feeder, whose binding was never opened: StreamCall's closeAfterRun does
     * live.close() on a null live.
     */
    @Test
    void aStreamArgumentThatCannotBeOpenedFailsTheTaskAndTheWorkerGoesOn() throws Exception {
        Pool closed = Moroutine.workers(1);
        var handle = closed.workers().get(0);
        closed.close();
        @SuppressWarnings("unchecked")
        StreamTask<Integer> unstartable = (StreamTask<Integer>) (Object) assign(handle, Jobs.countUp.call(10));
        try (Pool own = Isolated.workers(1, IsolatedOptions.defaults())) {
            Exception failed = assertThrows(Exception.class,
                    () -> own.submit(StreamJobs.stats.call(unstartable)).get(20, TimeUnit.SECONDS));
            assertEquals(false, failed instanceof java.util.concurrent.TimeoutException, "the task was never settled: " + failed);
            assertEquals(49, own.submit(Jobs.square.call(7)).get(20, TimeUnit.SECONDS), "the worker goes on");
        }
    }

    /**
     * The same cause, reached without a closed pool: a stream argument whose producer is assigned
     * to the very isolated worker that runs the consumer. A thread worker refuses it with "would
     * wait for itself" and goes on; here the refusal is thrown on the pump (isCurrent() is the
     * pump), by the feeder's open, and settle() then kills the pump with the NPE.
     */
    @Test
    void aStreamArgumentAssignedToTheConsumersOwnWorkerIsRefusedAndTheWorkerGoesOn() throws Exception {
        try (Pool own = Isolated.workers(1, IsolatedOptions.defaults())) {
            var w0 = own.workers().get(0);
            @SuppressWarnings("unchecked")
            StreamTask<Integer> onItself = (StreamTask<Integer>) (Object) assign(w0, Jobs.countUp.call(10));
            java.util.concurrent.ExecutionException failed = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> own.submit(assign(w0, StreamJobs.stats.call(onItself))).get(20, TimeUnit.SECONDS));
            assertEquals(true, String.valueOf(failed.getCause()).contains("wait for itself"), String.valueOf(failed.getCause()));
            assertEquals(49, own.submit(Jobs.square.call(7)).get(20, TimeUnit.SECONDS), "the worker goes on");
        }
    }

    /**
     * An item that the caller encodes but the worker JVM cannot decode, with a {@link LinkageError}
     * (a class missing or failing to initialise there): it fails the stream argument, named, as
     * such a task argument fails its task, and the JVM goes on.
     */
    @Test
    void anItemThatCannotBeDecodedThereFailsTheTaskAndTheJvmGoesOn() {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().register(OrderJobs.UnreadableThere.class))) {
            long pid = pool.run(Jobs.pid.call());
            TaskFailedException failed = assertThrows(TaskFailedException.class,
                    () -> pool.run(OrderJobs.countAll.call(channel(List.of("first", new OrderJobs.UnreadableThere())))));
            assertEquals(true, String.valueOf(failed.getMessage()).contains("UnreadableThere"), failed.getMessage());
            assertEquals(pid, pool.run(Jobs.pid.call()), "the same JVM goes on");
            assertEquals(2, pool.run(OrderJobs.countAll.call(channel(List.of("a", "b")))));
        }
    }
}
