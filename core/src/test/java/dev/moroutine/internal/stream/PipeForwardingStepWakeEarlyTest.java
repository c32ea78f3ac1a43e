package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A forwarding pipe's consumed count ({@link Pipe#consumedCount()}) is what its remote consumer
 * acknowledged, not what the forwarder took; a wake armed for a count runs once that many are
 * acknowledged, neither when the forwarder, having taken more, is about to park, nor at an
 * acknowledgement below the count.
 */
@Timeout(30)
class PipeForwardingStepWakeEarlyTest {

    @Test
    void theForwardersParkDoesNotRunAnArmingWhoseAcknowledgedCountIsNotReached() throws Exception {
        Pipe<Object> pipe = Pipe.forwarding(8, "a forwarding step pipe");
        pipe.producedElsewhere();
        for (int i = 0; i < 4; i++) {
            pipe.emit(i);
        }
        AtomicInteger woke = new AtomicInteger();
        pipe.wakeOnConsumption(3, woke::incrementAndGet); // until 3 are acknowledged
        for (int i = 0; i < 4; i++) {
            assertEquals(i, pipe.next()); // forwarded, not acknowledged
        }
        pipe.awaitItems(1, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1)); // the forwarder waits for more
        assertEquals(0, pipe.consumedCount());
        assertEquals(0, woke.get(), "the arming for 3 acknowledged ran with 0 acknowledged");
    }

    @Test
    void anAcknowledgementBelowTheCountDoesNotRunTheArming() {
        Pipe<Object> pipe = Pipe.forwarding(8, "a forwarding step pipe");
        pipe.producedElsewhere();
        for (int i = 0; i < 4; i++) {
            pipe.emit(i);
        }
        AtomicInteger woke = new AtomicInteger();
        pipe.wakeOnConsumption(3, woke::incrementAndGet);
        pipe.acknowledge(1);
        assertEquals(0, woke.get(), "the arming for 3 acknowledged ran at 1");
        pipe.acknowledge(3);
        assertEquals(1, woke.get());
    }
}
