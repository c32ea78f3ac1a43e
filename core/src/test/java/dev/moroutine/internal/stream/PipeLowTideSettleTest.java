package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A take publishes its count with a release store (no StoreLoad) before it reads
 * {@code ProducerWait.parked}, so the take that reaches the low tide and a producer's announcement
 * that it waits {@code LAZY} for it can miss each other (store buffering); the lazy wait's second
 * look after its settle time finds the count. The scenario is core-jcstress's PipeLowTideTest, in a
 * loop: high-water mark 4 (low tide 2), five emits, two takes, then the consumer stops taking; the
 * lazy timer is longer than the test, so only the take or the second look can end the wait (without
 * the look, found by a review of ad39825, this failed within 3,500–9,000 trials; 48,000 pass with it).
 * Runs for {@code -Dpipe.lowTideSettle.seconds} (15).
 */
@Timeout(300)
class PipeLowTideSettleTest {

    private static final long NO_TIMER = TimeUnit.HOURS.toNanos(1);
    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(Long.getLong("pipe.lowTideSettle.seconds", 15));

    @Test
    void aLazyProducerGoesOnOnceATakeReachesTheLowTide() throws Exception {
        ExecutorService producers = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().name("low-tide-producer").unstarted(r));
        SplittableRandom random = new SplittableRandom(7);
        Thread[] producerThread = new Thread[1];
        producers.submit(() -> producerThread[0] = Thread.currentThread()).get(10, TimeUnit.SECONDS);
        Thread producer = producerThread[0];
        long end = System.nanoTime() + RUN_NANOS;
        int trials = 0;
        int lazyWaits = 0;
        try {
            while (System.nanoTime() < end) {
                trials++;
                Pipe.ProducerWait wait = new Pipe.ProducerWait();
                Pipe<Integer> pipe = new Pipe<>(4, wait, "low-tide pipe", false, NO_TIMER);
                AtomicInteger emitted = new AtomicInteger();
                CompletableFuture<Integer> produced = CompletableFuture.supplyAsync(() -> {
                    for (int i = 1; i <= 5; i++) {
                        pipe.emit(i);
                        emitted.incrementAndGet();
                    }
                    return emitted.get();
                }, producers);
                // The producer parks at the mark (EAGER, announced long before the first take).
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!(emitted.get() == 4 && wait.waiting() == Pipe.ProducerWait.EAGER
                        && producer.getState() == Thread.State.WAITING)) {
                    assertTrue(System.nanoTime() < deadline, "trial " + trials + ": the producer never parked at the mark");
                    Thread.onSpinWait();
                }
                assertEquals(1, pipe.next()); // wakes the EAGER producer; it then waits LAZY for the low tide (3 in flight)
                while (producer.getState() == Thread.State.WAITING && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // until it runs again: it is about to announce LAZY and look at the count
                }
                for (int spins = random.nextInt(64); spins > 0; spins--) {
                    Thread.onSpinWait();
                }
                assertEquals(2, pipe.next()); // 2 in flight: the low tide; this take must wake a lazy producer
                if (wait.waiting() == Pipe.ProducerWait.LAZY) {
                    lazyWaits++;
                }
                try {
                    assertEquals(5, produced.get(5, TimeUnit.SECONDS));
                } catch (TimeoutException lost) {
                    fail("trial " + trials + " (" + lazyWaits + " lazy waits seen so far): the take that brought the pipe to its low tide"
                            + " did not wake the producer, which waits " + (wait.waiting() == Pipe.ProducerWait.LAZY ? "LAZY" : "as "
                            + wait.waiting()) + " with " + emitted.get() + " emitted, 2 taken; its state: " + producer.getState());
                } finally {
                    pipe.cancel();
                }
            }
        } finally {
            producers.shutdownNow();
        }
        assertTrue(trials > 0, "no trial ran");
    }
}
