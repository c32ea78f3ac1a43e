package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An item whose encoding throws an {@link Error} (a stack overflow), not an exception: the stream
 * must still be answered (the items before it, then a failure), as a result whose encoding throws
 * is, else its caller waits forever and the pool's close() with it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ItemEncodingErrorTest {

    @Test
    void anItemWhoseEncodingOverflowsTheStackStillEndsTheStream() throws Exception {
        endsWithFailure(0, OrderJobs.Bottomless.class);
    }

    @Test
    void anItemWhoseEncodingThrowsALinkageErrorStillEndsTheStream() throws Exception {
        endsWithFailure(1, OrderJobs.Unlinked.class);
    }

    private static void endsWithFailure(int which, Class<?> unencodable) throws Exception {
        IsolatedOptions options = IsolatedOptions.defaults().register(OrderJobs.Bottomless.class).register(OrderJobs.Unlinked.class);
        try (Pool pool = Isolated.workers(1, options)) {
            long pid = pool.run(Jobs.pid.call());
            LiveStream<Object> stream = pool.run(OrderJobs.firstThenBottomless.call(which));
            CompletableFuture<List<Object>> read = CompletableFuture.supplyAsync(() -> {
                List<Object> items = new ArrayList<>();
                for (Object item : stream) {
                    items.add(item);
                }
                return items;
            });
            try {
                List<Object> items = read.get(30, TimeUnit.SECONDS);
                fail("the stream ended normally with " + items + ": the item that cannot cross was lost");
            } catch (ExecutionException failed) {
                assertInstanceOf(RuntimeException.class, failed.getCause());
                assertTrue(String.valueOf(failed.getCause()).contains(unencodable.getName()),
                        "the failure names the item that cannot cross: " + failed.getCause());
            } catch (TimeoutException stuck) {
                int active = pool.workers().get(0).activeCount();
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // its death settles it, so close() ends
                fail("the stream was neither failed nor ended within 30 s (active count " + active + "): its forwarder died of"
                        + " the Error and nobody answers the task");
            }
            assertEquals(49, pool.run(Jobs.square.call(7)));
            assertEquals(0, pool.workers().get(0).activeCount());
        }
    }
}
