package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Pipe#wakeOnConsumption(long, Runnable)}, the wake of a producer in another process that
 * owes credit in steps: the takes below the armed count do not run the wake, the one that reaches
 * it does, once; a new arming replaces one not yet run; the pipe's end runs it whatever the count;
 * and a pump-like producer that arms, looks again and parks is never left asleep while its step is due.
 */
@Timeout(60)
class PipeStepWakeTest {

    @Test
    void onlyTheTakeThatReachesTheCountWakes() {
        Pipe<Object> pipe = Pipe.of(8, "a step pipe");
        for (int i = 0; i < 8; i++) {
            pipe.emit(i);
        }
        AtomicInteger woke = new AtomicInteger();
        pipe.wakeOnConsumption(3, woke::incrementAndGet);
        pipe.next();
        pipe.next();
        assertEquals(0, woke.get(), "two takes of the three the producer waits for");
        pipe.next();
        assertEquals(1, woke.get(), "the third take reaches the count");
        pipe.next();
        assertEquals(1, woke.get(), "once: the next take finds it unarmed");
    }

    @Test
    void aCountAlreadyPassedWakesAtTheNextTake() {
        Pipe<Object> pipe = Pipe.of(8, "a step pipe");
        for (int i = 0; i < 4; i++) {
            pipe.emit(i);
        }
        pipe.next();
        pipe.next();
        AtomicInteger woke = new AtomicInteger();
        pipe.wakeOnConsumption(1, woke::incrementAndGet);
        pipe.next();
        assertEquals(1, woke.get());
    }

    @Test
    void anEndWakesTheArmingThatStands() {
        Pipe.ProducerWait wait = new Pipe.ProducerWait();
        AtomicInteger woke = new AtomicInteger();
        wait.arm(1, () -> {
            throw new AssertionError("replaced by the next arming");
        });
        wait.arm(100, woke::incrementAndGet);
        wait.wake();
        assertEquals(1, woke.get());
        wait.wake();
        assertEquals(1, woke.get(), "once: the wake disarmed it");
    }

    @Test
    void theEndWakesBeforeTheCount() {
        Pipe<Object> pipe = Pipe.of(8, "a step pipe");
        pipe.emit(1);
        AtomicInteger woke = new AtomicInteger();
        pipe.wakeOnConsumption(100, woke::incrementAndGet);
        pipe.next();
        assertEquals(0, woke.get());
        pipe.cancel();
        assertEquals(1, woke.get(), "the consumer closed: the producer must hear of it");
    }

    @Test
    void aPumpWaitingForStepsIsNeverLeftAsleep() throws Exception {
        int iterations = 200;
        int items = 2_000;
        int highWaterMark = 16;
        long step = highWaterMark / 4;
        for (int iteration = 0; iteration < iterations; iteration++) {
            Pipe<Object> pipe = Pipe.of(highWaterMark, "a step pipe");
            Thread pump = Thread.currentThread();
            AtomicInteger wakes = new AtomicInteger();
            Thread consumer = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < items; i++) {
                    assertEquals(i, pipe.next());
                }
            });
            // The pump's rule: it emits within the consumer's credit, granted in steps, as IsolatedWorker's does.
            long credited = 0;
            int emitted = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (emitted < items) {
                while (emitted < items && emitted < credited + highWaterMark) {
                    pipe.emit(emitted++);
                }
                if (emitted == items) {
                    break;
                }
                long consumed = pipe.consumedCount();
                if (consumed - credited >= step) {
                    credited = consumed;
                    continue;
                }
                pipe.wakeOnConsumption(credited + step, () -> {
                    wakes.incrementAndGet();
                    LockSupport.unpark(pump);
                });
                if (pipe.consumedCount() - credited < step) { // else a take between the check and the arm: go on
                    long parkedAt = System.nanoTime();
                    LockSupport.parkNanos(this, TimeUnit.SECONDS.toNanos(5)); // parkNanos may return early: the loop looks again
                    assertTrue(System.nanoTime() - parkedAt < TimeUnit.SECONDS.toNanos(5),
                            "the pump was left asleep with a step of credit due (" + pipe.consumedCount() + " taken, "
                                    + credited + " credited)");
                }
                assertTrue(System.nanoTime() < deadline, "iteration " + iteration + " did not end");
            }
            pipe.finish();
            consumer.join();
            assertTrue(wakes.get() <= items / step + 1, "at most one wake per step, was " + wakes.get());
        }
    }
}
