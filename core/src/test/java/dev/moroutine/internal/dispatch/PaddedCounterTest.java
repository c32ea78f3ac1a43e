package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PaddedCounterTest {

    @Test
    void getAndAddReturnsTheValueBefore() {
        PaddedCounter counter = new PaddedCounter();
        assertEquals(0, counter.get());
        assertEquals(0, counter.getAndAdd(1));
        assertEquals(1, counter.getAndAdd(-1));
        assertEquals(0, counter.getAndAdd(5));
        assertEquals(5, counter.get());
    }

    @Test
    void bumpAddsOneAndReturnsTheValueBefore() {
        PaddedCounter counter = new PaddedCounter();
        assertEquals(0, counter.bump());
        assertEquals(1, counter.bump());
        assertEquals(2, counter.get());
    }

    @Test
    void compareAndSetSetsOnlyFromTheExpectedValue() {
        PaddedCounter counter = new PaddedCounter();
        assertFalse(counter.compareAndSet(1, 2));
        assertTrue(counter.compareAndSet(0, 2));
        assertEquals(2, counter.get());
    }

    /** Two threads bumping at once lose no update. */
    @RepeatedTest(20)
    @Timeout(30)
    void concurrentAddsAreAtomic() throws Exception {
        PaddedCounter counter = new PaddedCounter();
        CyclicBarrier start = new CyclicBarrier(2);
        Runnable bump = () -> {
            try {
                start.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < 100_000; i++) {
                counter.getAndAdd(1);
            }
        };
        CompletableFuture<Void> other = CompletableFuture.runAsync(bump, runnable -> Thread.ofPlatform().start(runnable));
        bump.run();
        other.get();
        assertEquals(200_000, counter.get());
    }
}
