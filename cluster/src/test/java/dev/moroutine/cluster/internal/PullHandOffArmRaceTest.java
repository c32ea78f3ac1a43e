package dev.moroutine.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.internal.stream.Pipe;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pull the pump sent itself (its count was reached before it armed the pipe) leaves that arming
 * set, so the next take runs the pipe's waker. A take that looked at the old arming (its count,
 * reached) and claims it only after the pump has armed the next pull ({@code Pipe.ProducerWait}'s
 * CAS of {@code parked}) consumes the new arming with that pull's count not reached: the waker
 * sends nothing, and {@link PullHandOff#next} never arms again. The take that reaches the count then
 * wakes nobody, and the pump waits for ever, as does the consumer, which has taken everything.
 *
 * <p>Three pumps and three consumers spin on two cores, so that takes are preempted inside that
 * window; each consumer spins for its items ({@link Pipe#poll}), so nothing but the takes runs the waker.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PullHandOffArmRaceTest {

    private static final int HIGH_WATER_MARK = 8;
    private static final int ROUNDS = 300_000;
    private static final int PAIRS = 3;

    @Test
    void aTakeRacingThePumpsArmingNeverLosesThePull() throws Exception {
        List<FutureTask<String>> pairs = new ArrayList<>();
        for (int p = 0; p < PAIRS; p++) {
            int seed = p;
            FutureTask<String> pair = new FutureTask<>(() -> race(seed));
            pairs.add(pair);
            Thread.ofPlatform().daemon().name("test-consumer-" + p).start(pair);
        }
        List<String> outcomes = new ArrayList<>();
        for (FutureTask<String> pair : pairs) {
            outcomes.add(pair.get(250, TimeUnit.SECONDS));
        }
        assertEquals(List.of("ok", "ok", "ok"), outcomes);
    }

    /** One pump and one consumer (this thread) over {@link #ROUNDS} rounds of two pulls: "ok", or the pull that was lost. */
    private static String race(int seed) throws Exception {
        Pipe<Object> pipe = Pipe.of(HIGH_WATER_MARK, "arm race stream " + seed);
        AtomicLong sends = new AtomicLong();
        AtomicBoolean giveUp = new AtomicBoolean();
        AtomicLong waitingFor = new AtomicLong(-1);
        FutureTask<Void> pumped = new FutureTask<>(() -> {
            PullHandOff pulls = new PullHandOff(pipe, consumed -> {
                sends.incrementAndGet();
                return CompletableFuture.completedFuture(new byte[0]);
            });
            SplittableRandom random = new SplittableRandom(seed);
            long got = 0;
            Object[] run = new Object[HIGH_WATER_MARK];
            for (int round = 0; round < ROUNDS; round++) {
                // The consumer has taken everything: the pump finds the count reached and sends the pull itself.
                while (pipe.consumedCount() < got) {
                    if (giveUp.get()) {
                        return null;
                    }
                    Thread.onSpinWait();
                }
                if (pulls.next(got, true, () -> !giveUp.get()) == null) {
                    return null;
                }
                // Its answer: a window, and the next pull at its end; the batch's first take races this arming.
                for (int i = 0; i < HIGH_WATER_MARK; i++) {
                    run[i] = (int) (got + i);
                }
                got += HIGH_WATER_MARK;
                waitingFor.set(got);
                pipe.emitRun(run, HIGH_WATER_MARK);
                for (int spins = random.nextInt(64); spins > 0; spins--) {
                    Thread.onSpinWait(); // sweeps the arming across the consumer's first take
                }
                if (pulls.next(got, true, () -> !giveUp.get()) == null) {
                    return null;
                }
            }
            pipe.finish();
            return null;
        });
        Thread pump = Thread.ofPlatform().daemon().name("test-pump-" + seed).start(pumped);
        long total = (long) ROUNDS * HIGH_WATER_MARK;
        for (long i = 0; i < total; i++) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            Object item;
            while ((item = pipe.poll()) == null) { // the next batch comes once the pull at this one's end has left
                if (System.nanoTime() > deadline) {
                    String lost = "pair " + seed + ": the consumer has taken all " + i + " items, and the pump waits for the pull"
                            + " at " + waitingFor.get() + " (" + pump.getState() + " in " + pump.getStackTrace()[2] + "), but it"
                            + " never left; " + sends.get() + " pulls sent";
                    giveUp.set(true);
                    LockSupport.unpark(pump);
                    pumped.get(30, TimeUnit.SECONDS);
                    return lost;
                }
                Thread.onSpinWait();
            }
            if (!Integer.valueOf((int) i).equals(item)) {
                return "pair " + seed + ": item " + item + " where " + i + " was due";
            }
        }
        pumped.get(30, TimeUnit.SECONDS);
        return sends.get() == 2L * ROUNDS ? "ok" : "pair " + seed + ": " + sends.get() + " pulls sent for " + ROUNDS + " rounds of two";
    }
}
