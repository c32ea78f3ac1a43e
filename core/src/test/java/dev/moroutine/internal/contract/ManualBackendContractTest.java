package dev.moroutine.internal.contract;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Balancer;
import dev.moroutine.Mo1;
import dev.moroutine.Mo3;
import dev.moroutine.Signal;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.internal.dispatch.ManualBackend;
import dev.moroutine.internal.dispatch.Worker;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The contract on the manual backend, which runs a task only when the test asks, on the test's own
 * thread: a blocking call is made on another thread while this one runs what it dispatches. The
 * tests of its own show orders that the thread backend can only race.
 */
class ManualBackendContractTest extends PoolContract {

    private static final AtomicInteger POOLS = new AtomicInteger();

    static final Mo1<Signal, Boolean> abortedYet = mo(Signal::aborted);
    static final Mo3<Queue<String>, String, WorkerHandle, Boolean> record = mo((ran, label, self) -> {
        ran.add(label);
        return ((Worker) self).isCurrent();
    });
    static final Mo1<CountDownLatch, Boolean> startAndWaitForInterrupt = mo(started -> {
        started.countDown();
        return new CountDownLatch(1).await(WAIT.toSeconds(), TimeUnit.SECONDS);
    });

    private final ManualBackend backend = new ManualBackend();

    @Override
    WorkerPool pool(int size, Balancer balancer) {
        return new WorkerPool(size, balancer, null, "manual-pool-" + POOLS.incrementAndGet(), HIGH_WATER_MARK, null, backend);
    }

    @Override
    <T> T blocking(Callable<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().name("contract-caller").start(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable failed) {
                result.completeExceptionally(failed);
            }
        });
        backend.runUntil(result, WAIT);
        try {
            return result.get();
        } catch (ExecutionException failed) {
            if (failed.getCause() instanceof Exception thrown) {
                throw thrown;
            }
            throw (Error) failed.getCause();
        }
    }

    @Override
    void awaitDone(CompletableFuture<?> future) throws Exception {
        backend.runUntil(future, WAIT);
    }

    @Override
    void runQueued() {
        backend.runUntilIdle();
    }

    @Override
    Runnable letOtherWorkersRun() {
        return backend::runUntilIdle;
    }

    /** Nothing runs until the test asks: the holding task stays queued, and what is sent next queues behind it. */
    @Override
    void awaitHolding(CountDownLatch started) {}

    @Test
    void workersRunTheirTasksOnlyWhenAskedInDispatchOrderOnTheAskingThread() {
        Queue<String> ran = new ConcurrentLinkedQueue<>();
        try (WorkerPool pool = pool(2, roundRobin())) {
            WorkerHandle first = pool.workers().get(0);
            WorkerHandle second = pool.workers().get(1);
            List<CompletableFuture<Boolean>> sent = List.of(
                    pool.submit(assign(second, record.call(ran, "a", second))),
                    pool.submit(assign(first, record.call(ran, "b", first))),
                    pool.submit(assign(second, record.call(ran, "c", second))));
            assertEquals(List.of(), List.copyOf(ran), "a dispatch only queues");
            assertEquals(List.of(1, 2), activeCounts(pool));

            assertTrue(backend.runNext());
            assertEquals(List.of("a"), List.copyOf(ran));
            assertTrue(sent.getFirst().getNow(false), "its worker was current while it ran");
            assertFalse(((Worker) second).isCurrent(), "and is not once it returned");
            assertEquals(List.of(1, 1), activeCounts(pool));

            assertEquals(2, backend.runUntilIdle());
            assertEquals(List.of("a", "b", "c"), List.copyOf(ran));
            assertFalse(backend.runNext());
            assertEquals(List.of(0, 0), activeCounts(pool));
        }
    }

    @Test
    void aTaskSentBeforeCloseRunsInsideCloseAfterThePoolsSignalFired() {
        WorkerPool pool = pool(1, roundRobin());
        CompletableFuture<Boolean> task = pool.submit(abortedYet.call(pool.signal()));
        assertFalse(task.isDone());
        assertEquals(1, pool.workers().getFirst().activeCount());
        pool.close();
        assertTrue(task.getNow(false), "it ran inside close(), which drains the workers before it fires the signal");
    }

    @Test
    void aForcedStopFromAnotherThreadInterruptsTheRunOnTheTestThreadAndOnlyIt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        try (WorkerPool pool = pool(1, roundRobin())) {
            Task<Boolean> task = startAndWaitForInterrupt.call(started);
            CompletableFuture<Boolean> running = pool.submit(task);
            Thread terminator = Thread.ofPlatform().name("contract-terminator").start(() -> {
                try {
                    if (started.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        pool.terminate();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(backend.runNext(), "it returns once the interrupt ended the task");
            terminator.join(WAIT.toMillis());
            assertEquals(nameOf(pool) + " was terminated while this task was running; it was interrupted (" + task + ")",
                    cancellation(running).getMessage());
            assertFalse(Thread.currentThread().isInterrupted());
            assertTrue(((Worker) pool.workers().getFirst()).isStopped());
        }
    }
}
