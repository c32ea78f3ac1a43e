package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Balancer;
import dev.moroutine.Mo1;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.ManualBackend;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.testing.NoLeakedWorkers;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Workers that come and go (a cluster's members): what the pool's existing contracts promise once a
 * worker has been removed. The manual backend makes each order deterministic: the "member leaves"
 * event is written down between two steps of the pool instead of raced.
 */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(60)
class WorkerPoolLeavingTest {

    static final Mo1<Integer, Integer> twice = mo(x -> 2 * x);
    static final Mo1<AtomicBoolean, AutoCloseable> closeable = mo(closed -> () -> closed.set(true));
    static final Mo1<AutoCloseable, Integer> holdsValue = mo(value -> 1);
    /** A value whose close() announces itself, then waits to be let go. */
    static final Mo1<CountDownLatch[], AutoCloseable> slowToClose = mo(latches -> () -> {
        latches[0].countDown();
        latches[1].await(30, TimeUnit.SECONDS);
    });

    private final ManualBackend backend = new ManualBackend();

    private WorkerPool manual(int size, Balancer balancer) {
        return new WorkerPool(size, balancer, null, "review-pool", 16, null, backend);
    }

    /**
     * Pool.close(): "When close() returns, every task the pool accepted is complete ... and every
     * worker has stopped and closed its task-arg values". A worker removed (the member left) but not
     * yet stopped by the backend is neither drained nor awaited: close() returns with its accepted
     * task still pending and its task-arg value open.
     */
    @Test
    void closeSettlesWhatARemovedWorkerAcceptedBeforeItStopped() {
        WorkerPool pool = manual(2, roundRobin());
        Worker leaving = (Worker) pool.workers().get(1);
        AtomicBoolean valueClosed = new AtomicBoolean();
        CompletableFuture<Integer> cached = pool.submit(assign(leaving, holdsValue.call(closeable.call(valueClosed))));
        backend.runUntilIdle();
        assertEquals(1, cached.join());
        CompletableFuture<Integer> accepted = pool.submit(assign(leaving, twice.call(3)));

        assertTrue(pool.removeWorker(leaving)); // the member left; the backend has not stopped it yet
        pool.close();
        boolean settled = accepted.isDone();
        boolean closedValue = valueClosed.get();
        leaving.forceStop("it left"); // what the backend does next
        assertAll(
                () -> assertTrue(settled, "close() returned with a task the pool accepted still pending"),
                () -> assertTrue(closedValue, "close() returned with a worker's task-arg value still open"));
    }

    /** The same for terminate(): "unfinished tasks fail at once" does not reach a removed, unstopped worker. */
    @Test
    void terminateSettlesWhatARemovedWorkerAcceptedBeforeItStopped() {
        WorkerPool pool = manual(2, roundRobin());
        Worker leaving = (Worker) pool.workers().get(1);
        CompletableFuture<Integer> accepted = pool.submit(assign(leaving, twice.call(3)));

        assertTrue(pool.removeWorker(leaving));
        pool.terminate();
        boolean settled = accepted.isDone();
        leaving.forceStop("it left");
        assertTrue(settled, "terminate() returned with a task the pool accepted still pending");
    }

    /**
     * Pool.submit throws RejectedExecutionException "if the pool is closed". A member that leaves
     * between the balancer's choice and the dispatch (here: inside select, to make the order
     * deterministic) makes an open pool with a live worker refuse an unassigned task that never ran
     * anywhere, instead of placing it again.
     */
    @Test
    void aTaskWhoseChosenWorkerLeavesBeforeDispatchRunsOnAnotherWorker() {
        AtomicReference<WorkerPool> self = new AtomicReference<>();
        AtomicBoolean leftOnce = new AtomicBoolean();
        Balancer firstChoiceLeaves = (workers, task) -> {
            WorkerHandle chosen = workers.get(0);
            if (leftOnce.compareAndSet(false, true)) {
                self.get().removeWorker((Worker) chosen); // the member-left event, racing this dispatch
                ((Worker) chosen).forceStop("it left");
            }
            return chosen;
        };
        try (WorkerPool pool = manual(2, firstChoiceLeaves)) {
            self.set(pool);
            CompletableFuture<Integer> result = assertDoesNotThrow(() -> pool.submit(twice.call(21)),
                    "an open pool with a worker left refused a task that never ran");
            backend.runUntilIdle();
            assertEquals(42, result.join());
        }
    }

    /**
     * The same on the thread backend even when the backend did its part (removeWorker, then
     * forceStop) before close(): the removed worker's thread is still closing its task-arg value,
     * and close() returns without waiting for it.
     */
    @Test
    void closeWaitsForARemovedWorkerThatIsStillStopping() throws InterruptedException {
        CountDownLatch closing = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        WorkerPool pool = new WorkerPool(2, roundRobin(), null, null, 16, null, WorkerPool.THREADS);
        Worker leaving = (Worker) pool.workers().get(1);
        assertEquals(1, pool.run(assign(leaving, holdsValue.call(slowToClose.call(new CountDownLatch[] {closing, letGo})))));
        assertTrue(pool.removeWorker(leaving));
        leaving.forceStop("it left");
        assertTrue(closing.await(10, TimeUnit.SECONDS), "the worker's thread is closing its value");

        pool.close();
        boolean stoppedWhenCloseReturned = leaving.isStopped();
        letGo.countDown();
        assertTrue(leaving.awaitStopped(10, TimeUnit.SECONDS));
        assertTrue(stoppedWhenCloseReturned, "close() returned while a worker of the pool was still closing its task-arg values");
    }

    /**
     * addWorker calls the backend's start (for a cluster: remote, possibly slow) while holding the
     * pool's lock, which terminate() (and close(), removeWorker) then waits for: terminate(), "May be
     * called from a worker" and meant to fail unfinished tasks at once, is held by a member that is
     * slow to join.
     */
    @Test
    void terminateIsNotHeldByAWorkerThatIsSlowToStart() throws Exception {
        CountDownLatch inStart = new CountDownLatch(1);
        CountDownLatch letStart = new CountDownLatch(1);
        WorkerPool pool = manual(1, roundRobin());
        WorkerPool.Backend slowToJoin = (name, index, group) -> {
            inStart.countDown();
            try {
                letStart.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return backend.start(name, index, group);
        };
        // Threads of their own: the common pool may have one thread, which the blocked start would hold.
        java.util.concurrent.Executor threads = command -> Thread.ofPlatform().daemon().start(command);
        CompletableFuture<Worker> joining = CompletableFuture.supplyAsync(() -> pool.addWorker(slowToJoin), threads);
        assertTrue(inStart.await(10, TimeUnit.SECONDS));
        CompletableFuture<Void> terminated = CompletableFuture.runAsync(pool::terminate, threads);
        boolean prompt;
        try {
            terminated.get(2, TimeUnit.SECONDS);
            prompt = true;
        } catch (java.util.concurrent.TimeoutException held) {
            prompt = false;
        }
        letStart.countDown();
        terminated.get(10, TimeUnit.SECONDS);
        try {
            joining.get(10, TimeUnit.SECONDS).forceStop("cleanup");
        } catch (java.util.concurrent.ExecutionException refused) {
            // refused because the pool was terminated first: fine
        }
        assertTrue(prompt, "terminate() waited for a worker's start, which addWorker runs under the pool's lock");
    }

    /**
     * WorkerHandle.index() is a worker's number, never reused: once one has left, workers() keeps
     * index order with a gap, and a worker added later gets the next number.
     */
    @Test
    void indicesStayInOrderWithGapsAndAreNeverReused() throws InterruptedException {
        try (WorkerPool pool = new WorkerPool(3, roundRobin(), null, null, 16, null, WorkerPool.THREADS)) {
            Worker leaving = (Worker) pool.workers().get(1);
            assertTrue(pool.removeWorker(leaving));
            leaving.forceStop("it left");
            assertTrue(leaving.awaitStopped(10, TimeUnit.SECONDS));
            Worker joined = pool.addWorker(WorkerPool.THREADS);
            assertEquals(List.of(0, 2, 3), pool.workers().stream().map(WorkerHandle::index).toList());
            assertEquals(3, joined.index());
        }
    }
}
