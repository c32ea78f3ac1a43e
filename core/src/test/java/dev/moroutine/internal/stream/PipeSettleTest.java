package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A take publishes its count without a fence, so a producer's wait for room must find a count that
 * came late without a wake: {@code ProducerWait.park} looks at its condition again once its settle
 * time is over. And a pipe whose producer waits elsewhere must be marked for fenced takes first.
 */
@Timeout(60)
class PipeSettleTest {

    /**
     * The race, played out: the room is there only from the second look on (the count reached the
     * producer after its first look) and no take wakes it. The wait ends by its second look.
     */
    @RepeatedTest(20)
    void aWaitForRoomLooksAgainAfterItsSettleTimeWithoutAWake() throws Exception {
        Pipe.ProducerWait wait = new Pipe.ProducerWait();
        AtomicInteger looks = new AtomicInteger();
        CompletableFuture<Integer> parked = CompletableFuture.supplyAsync(() -> {
            wait.park(() -> looks.incrementAndGet() >= 2);
            return wait.waiting();
        }, r -> Thread.ofPlatform().daemon().start(r));
        assertEquals(0, parked.get(10, TimeUnit.SECONDS), "the wait ended, and says so");
        assertEquals(2, looks.get(), "one look after the announcement, one after the settle time");
    }

    /** A wake during the settle time ends the wait then, without a second look. */
    @Test
    void aWakeDuringTheSettleTimeEndsTheWait() throws Exception {
        Pipe.ProducerWait wait = new Pipe.ProducerWait();
        AtomicInteger looks = new AtomicInteger();
        CompletableFuture<Void> parked = CompletableFuture.runAsync(() -> wait.park(() -> {
            looks.incrementAndGet();
            return false;
        }), r -> Thread.ofPlatform().daemon().start(r));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (wait.waiting() != Pipe.ProducerWait.EAGER) {
            assertTrue(System.nanoTime() < deadline, "the producer never announced its wait");
            Thread.onSpinWait();
        }
        wait.wake();
        parked.get(10, TimeUnit.SECONDS);
        assertTrue(looks.get() <= 2, "looks: " + looks.get());
    }

    @Test
    void armingAPipeNotMarkedAsProducedElsewhereSaysWhatToDo() {
        Pipe<Integer> pipe = new Pipe<>(4, "the test pipe");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pipe.wakeOnConsumption(() -> { }));
        assertEquals("the test pipe was not marked producedElsewhere() before its first item, so its takes may not see"
                + " a producer that waits for them here", e.getMessage());
        assertThrows(IllegalStateException.class, () -> pipe.wakeOnConsumption(3, () -> { }));
        pipe.producedElsewhere();
        pipe.wakeOnConsumption(() -> { }); // now it may
    }
}
