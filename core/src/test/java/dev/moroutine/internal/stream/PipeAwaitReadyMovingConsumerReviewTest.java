package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review: a forwarding pipe's consumer that moves from thread to thread under a lock, as a cluster
 * member's pulls do (each on an executor thread Hazelcast picks), waiting with
 * {@link Pipe#awaitReady} and short deadlines that often expire as items come, then taking runs;
 * the requester acknowledges what each answer carried. Every item must come once, in order.
 */
@Timeout(120)
class PipeAwaitReadyMovingConsumerReviewTest {

    private static final int ITEMS = 100_000;

    @Test
    void aConsumerMovingBetweenThreadsTakesEveryItemOnceInOrder() throws Exception {
        for (int highWaterMark : new int[] {1, 3, 64}) {
            Pipe<Object> pipe = Pipe.forwarding(highWaterMark, "a forwarding pipe");
            ReentrantLock pulling = new ReentrantLock();
            Object[] run = new Object[Math.min(highWaterMark, 16)];
            ExecutorService executors = Executors.newFixedThreadPool(3);
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                SplittableRandom random = new SplittableRandom(highWaterMark);
                for (int i = 0; i < ITEMS; i++) {
                    pipe.emit(i);
                    if (random.nextInt(1_000) == 0) {
                        LockSupport.parkNanos(random.nextInt(50_000)); // a stall: shifts timing only
                    }
                }
                pipe.finish();
            }, task -> Thread.ofPlatform().daemon().start(task));
            try {
                SplittableRandom random = new SplittableRandom(~highWaterMark);
                long received = 0;
                boolean ended = false;
                while (!ended) {
                    long acknowledged = received;
                    long wait = random.nextInt(4) == 0 ? 0 : random.nextInt(30_000);
                    // one pull, on a pool thread: acknowledge, then take what is ready by a deadline
                    Object[] answer = CompletableFuture.supplyAsync(() -> {
                        pipe.acknowledge(acknowledged);
                        pulling.lock();
                        try {
                            List<Object> out = new ArrayList<>();
                            long deadline = System.nanoTime() + wait;
                            while (out.size() < run.length && pipe.awaitReady(deadline)) {
                                int n = pipe.nextRun(run);
                                if (n == 0) {
                                    out.add(ItemSource.END);
                                    break;
                                }
                                for (int i = 0; i < n; i++) {
                                    out.add(run[i]);
                                }
                            }
                            return out.toArray();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        } finally {
                            pulling.unlock();
                        }
                    }, executors).get(30, TimeUnit.SECONDS);
                    for (Object item : answer) {
                        if (item == ItemSource.END) {
                            ended = true;
                        } else {
                            assertEquals(received, ((Integer) item).longValue(), "window " + highWaterMark);
                            received++;
                        }
                    }
                }
                assertEquals(ITEMS, received, "window " + highWaterMark);
                producer.get(30, TimeUnit.SECONDS);
            } finally {
                executors.shutdownNow();
            }
        }
    }
}
