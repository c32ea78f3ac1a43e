package dev.moroutine.internal.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Balancer;
import dev.moroutine.internal.call.WorkerPool;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The contract on the thread backend: every worker runs its tasks on its own thread, so a test only waits. */
class ThreadBackendContractTest extends PoolContract {

    private static final AtomicInteger POOLS = new AtomicInteger();

    @Override
    WorkerPool pool(int size, Balancer balancer) {
        return new WorkerPool(size, balancer, null, "moroutine-pool-contract-" + POOLS.incrementAndGet(), HIGH_WATER_MARK,
                null, WorkerPool.THREADS);
    }

    @Override
    <T> T blocking(Callable<T> call) throws Exception {
        return call.call();
    }

    @Override
    void awaitDone(CompletableFuture<?> future) throws Exception {
        future.handle((result, failure) -> null).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Override
    void runQueued() {}

    @Override
    Runnable letOtherWorkersRun() {
        return () -> {};
    }

    @Override
    void awaitHolding(CountDownLatch started) throws InterruptedException {
        assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    }
}
