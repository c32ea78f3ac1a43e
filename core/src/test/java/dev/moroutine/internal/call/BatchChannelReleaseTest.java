package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Balancer;
import dev.moroutine.Mo1;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A channel end reserved by a batch is released on every path, so the channel still ends when its consumers close. */
@Timeout(120)
class BatchChannelReleaseTest {

    static final Map<Integer, CountDownLatch> STARTED = new ConcurrentHashMap<>();
    static final Map<Integer, CountDownLatch> STOPPED = new ConcurrentHashMap<>();
    static final AtomicInteger KEYS = new AtomicInteger();

    static final StreamMo1<Integer, Integer> endless = emitting((Integer key, Emitter<Integer> out) -> {
        STARTED.get(key).countDown();
        try {
            for (int i = 0; ; i++) {
                out.emit(i);
            }
        } finally {
            STOPPED.get(key).countDown();
        }
    });
    static final Mo1<Stream<Integer>, Integer> takesNothing = mo(in -> 0);
    static final Mo1<Stream<Integer>, Long> takesFive = mo(in -> in.limit(5).count());
    static final Mo1<Integer, Integer> same = mo(x -> x);
    static final Mo1<CountDownLatch, Boolean> blocks = mo(latch -> latch.await(30, TimeUnit.SECONDS));

    /**
     * Waits until the channel has ended, as a reservation that it refuses says, and then, if its
     * source ran, until it stopped. (The source may never run: a channel whose consumers all close
     * before its source starts cancels it before it starts.) Each probe that the channel does not
     * refuse attaches an end and closes it at once: that ends a channel whose other ends were all
     * released, and cannot end one that still counts an end the batch leaked.
     */
    private static void awaitEnded(Channel<Integer> shared, int key, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            LiveStream<Integer> probe;
            try {
                probe = shared.join();
            } catch (IllegalStateException ended) {
                assertTrue(ended.getMessage().contains("has ended"), ended.getMessage());
                break;
            }
            probe.close();
            assertTrue(System.nanoTime() < deadline, failure);
            Thread.yield();
        }
        if (STARTED.get(key).getCount() == 0) {
            assertTrue(STOPPED.get(key).await(10, TimeUnit.SECONDS), failure + ": its source ran and never stopped");
        }
    }

    private static int newKey() {
        int key = KEYS.incrementAndGet();
        STARTED.put(key, new CountDownLatch(1));
        STOPPED.put(key, new CountDownLatch(1));
        return key;
    }

    @Test
    void aBatchRefusedPartWayReleasesTheEndsItReservedSoTheChannelStillEnds() throws Exception {
        try (WorkerPool pool = new WorkerPool(2, roundRobin(), null, null, 16, null, WorkerPool.THREADS)) {
            Worker gone = (Worker) pool.workers().get(1);
            assertTrue(pool.removeWorker(gone));
            gone.forceStop("it left");
            for (int round = 0; round < 20; round++) {
                int key = newKey();
                Channel<Integer> shared = channel(endless.call(key));
                List<Task<?>> batch = List.of(takesNothing.call(shared), assign(gone, same.call(1)), shared,
                        takesFive.call(shared));
                assertThrows(RejectedExecutionException.class, () -> pool.runAll(batch));
                awaitEnded(shared, key, "round " + round + ": every consumer that attached closed, but the channel never ended");
            }
        }
    }

    @Test
    void anErrorPartWaySettlesTheBatchAndReleasesItsEnds() throws Exception {
        Balancer failsForSame = (workers, task) -> {
            if (isTask(same, task)) {
                throw new AssertionError("balancer broke");
            }
            return workers.get(0);
        };
        try (WorkerPool pool = new WorkerPool(2, failsForSame, null, null, 16, null, WorkerPool.THREADS)) {
            for (int round = 0; round < 20; round++) {
                int key = newKey();
                Channel<Integer> shared = channel(endless.call(key));
                List<Task<?>> batch = List.of(takesNothing.call(shared), shared, same.call(1), takesFive.call(shared));
                AssertionError thrown = assertThrows(AssertionError.class, () -> pool.runAll(batch));
                assertEquals("balancer broke", thrown.getMessage());
                awaitEnded(shared, key, "round " + round + ": the channel never ended");
            }
        }
    }

    @Test
    void batchesWhoseWorkersLeaveStillFeedEveryEndAndEndTheirChannels() throws Exception {
        AtomicReference<WorkerPool> self = new AtomicReference<>();
        Balancer sometimesLeaves = (workers, task) -> {
            WorkerHandle chosen = workers.get(ThreadLocalRandom.current().nextInt(workers.size()));
            // Only a worker that holds nothing leaves: one that leaves with tasks queued cancels them, as it should.
            if (ThreadLocalRandom.current().nextInt(4) == 0 && workers.size() > 1 && ((Worker) chosen).activeCount() == 0) {
                WorkerPool pool = self.get();
                pool.removeWorker((Worker) chosen);
                ((Worker) chosen).forceStop("it left");
                pool.addWorker(WorkerPool.THREADS);
            }
            return chosen;
        };
        try (WorkerPool pool = new WorkerPool(3, sometimesLeaves, null, null, 4, null, WorkerPool.THREADS)) {
            self.set(pool);
            for (int round = 0; round < 100; round++) {
                int key = newKey();
                Channel<Integer> shared = channel(endless.call(key), 4);
                List<Task<?>> batch = new ArrayList<>();
                batch.add(takesNothing.call(shared));
                batch.add(takesFive.call(shared));
                for (int i = 0; i < 5; i++) {
                    batch.add(same.call(i));
                }
                batch.add(shared);
                batch.add(takesNothing.call(shared));
                List<Object> results = pool.runAll(batch);
                assertEquals(5L, results.get(1));
                @SuppressWarnings("unchecked")
                LiveStream<Integer> end = (LiveStream<Integer>) results.get(7);
                try (end) {
                    assertEquals(10, end.limit(10).count(), "round " + round);
                }
                assertTrue(STOPPED.get(key).await(10, TimeUnit.SECONDS), "round " + round + ": the source never stopped");
            }
        }
    }

    @Test
    void aTerminatedPoolsQueuedConsumerDoesNotKeepTheChannelRunning() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        int key = newKey();
        Channel<Integer> shared = channel(endless.call(key));
        WorkerPool pool = new WorkerPool(1, roundRobin(), null, null, 16, null, WorkerPool.THREADS);
        try {
            pool.submit(blocks.call(hold));
            pool.submit(takesFive.call(shared)); // queued behind: attached, never run
            try (LiveStream<Integer> mine = shared.join()) {
                assertEquals(3, mine.limit(3).count());
            }
            pool.terminate();
            assertTrue(STOPPED.get(key).await(10, TimeUnit.SECONDS), "the source never stopped");
        } finally {
            hold.countDown();
            pool.terminate();
        }
    }
}
