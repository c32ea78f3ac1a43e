package dev.moroutine;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A batch task left at the head of its worker's queue while the worker's thread runs an older task
 * of the batch (taken from a sibling) fails at once on a forced stop (terminate(), or close() past
 * its shutdown timeout), even while that older task ignores the interrupt: the runAll caller returns
 * (queued tasks "fail at once", Pool's Javadoc; see also
 * PoolTest.aTaskThatIgnoresInterruptsCannotHoldCloseBeyondTheTimeout). From the review of 9bfc14d,
 * which kept the task aside, in no queue, where the stop did not see it.
 */
@Timeout(60)
class BatchForcedStopTest {

    /** Holds its worker until {@code release} opens. */
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, release) -> {
        started.countDown();
        return release.await(30, TimeUnit.SECONDS);
    });
    /** Ignores interrupts until {@code stop}. */
    static final Mo2<CountDownLatch, AtomicBoolean, String> stubborn = mo((started, stop) -> {
        started.countDown();
        while (!stop.get()) {
            Thread.onSpinWait();
        }
        return "stopped";
    });
    static final Mo1<Integer, Integer> echo = mo(i -> i);

    @ParameterizedTest(name = "terminate: {0}")
    @ValueSource(booleans = {true, false})
    void aForcedStopFailsATaskLeftForAnOlderOneAtOnce(boolean terminate) throws Exception {
        Pool pool = workers(2, PoolOptions.defaults().withBalancer(roundRobin()).withShutdownTimeout(Duration.ZERO));
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch holding = new CountDownLatch(2);
        List<CountDownLatch> releases = List.of(new CountDownLatch(1), new CountDownLatch(1));
        CompletableFuture<List<Object>> caller = null;
        try {
            List<CompletableFuture<Boolean>> holders = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                holders.add(pool.submit(assign(pool.workers().get(w), hold.call(holding, releases.get(w)))));
            }
            assertTrue(holding.await(30, TimeUnit.SECONDS));
            CountDownLatch stubbornStarted = new CountDownLatch(1);
            // Round robin: task 0 (stubborn) and task 2 on one worker (A), task 1 on the other (B).
            List<Task<?>> batch = List.of(stubborn.call(stubbornStarted, stop), echo.call(1), echo.call(2));
            caller = CompletableFuture.supplyAsync(() -> pool.runAll(batch), Thread::startVirtualThread);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // All three queued: task 2 is sent after task 1 was exposed (Batch.sent(2)).
            while (pool.workers().stream().mapToInt(WorkerHandle::activeCount).sum() < 2 + 3) {
                assertTrue(System.nanoTime() < deadline, "the batch was never all queued");
                Thread.onSpinWait();
            }
            int b = pool.workers().get(0).activeCount() == 2 ? 0 : 1; // B: its holder and task 1
            assertTrue(pool.workers().get(b).activeCount() == 2 && pool.workers().get(1 - b).activeCount() == 3);
            // B's thread comes to task 1, runs the batch's oldest (task 0, at A) instead and leaves task 1 queued.
            releases.get(b).countDown();
            assertTrue(stubbornStarted.await(30, TimeUnit.SECONDS));

            if (terminate) {
                pool.terminate();
            } else {
                pool.close(); // shutdown timeout 0: drains, then force-stops at once
            }
            try {
                caller.get(5, TimeUnit.SECONDS);
                fail("the batch cannot succeed: it was stopped");
            } catch (ExecutionException stopped) {
                assertInstanceOf(java.util.concurrent.CancellationException.class, stopped.getCause());
            } catch (TimeoutException hung) {
                fail("runAll still waits 5 s after " + (terminate ? "terminate()" : "close() past its shutdown timeout")
                        + ": the batch task left for an older one (task 1) was never cancelled, while the stubborn task runs");
            }
        } finally {
            stop.set(true);
            releases.forEach(CountDownLatch::countDown);
            pool.terminate();
            if (caller != null) {
                try {
                    caller.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException ignored) {
                    // stopped
                }
            }
        }
    }
}
