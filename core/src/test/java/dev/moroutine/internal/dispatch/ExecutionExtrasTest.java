package dev.moroutine.internal.dispatch;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.AbortController;
import dev.moroutine.Mo0;
import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import dev.moroutine.Signal;
import dev.moroutine.internal.call.Call;
import dev.moroutine.testing.NoLeakedWorkers;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What only some executions have (endpoint bindings, a stop signal, a settlement listener) lives in
 * one object that the first to need it makes: each of them still works when another made it (see
 * also {@link ExecutionSettlementTest}, for a listener beside endpoint bindings).
 */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(120)
class ExecutionExtrasTest {

    /** Sets {@code state} to 1 once started, then to 2 when its signal fires (3 if it gave up after 10 s). */
    static final Mo2<Signal, AtomicInteger, Integer> waitsForAbort = mo((signal, state) -> {
        state.set(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!signal.aborted()) {
            if (System.nanoTime() > deadline) {
                state.set(3);
                return 3;
            }
            Thread.onSpinWait();
        }
        state.set(2);
        return 2;
    });
    static final Mo0<Integer> nothing = mo(() -> 0);

    /**
     * As a worker JVM's child does: the listener is set before a task that takes a signal is
     * dispatched (so the listener made the extras and the run adds its signal to them), and a
     * stopper races the run: the listener is told exactly once, and a run that started sees its
     * signal fire.
     */
    @Test
    void aRunAddsItsSignalToTheListenersExtrasAndAStopperFiresIt() throws Exception {
        AbortController never = new AbortController();
        SplittableRandom random = new SplittableRandom(14);
        try (Pool pool = workers(1)) {
            Worker worker = (Worker) pool.workers().getFirst();
            for (int round = 0; round < 2_000; round++) {
                AtomicInteger state = new AtomicInteger();
                Execution<Integer> execution = new Execution<>(Call.of(waitsForAbort.call(never.signal(), state)), null);
                AtomicInteger told = new AtomicInteger();
                execution.onSettled((value, failure) -> told.incrementAndGet());
                worker.dispatch(execution);
                for (int spins = random.nextInt(20_000); spins > 0; spins--) {
                    Thread.onSpinWait();
                }
                if (random.nextBoolean()) {
                    execution.cancel(true);
                } else {
                    execution.cancel("the test stops it");
                }
                Execution<Integer> after = new Execution<>(Call.of(nothing.call()), null);
                worker.dispatch(after); // the one worker runs it after the run above has ended
                after.get(10, TimeUnit.SECONDS);
                assertEquals(1, told.get(), "round " + round);
                assertTrue(state.get() == 0 || state.get() == 2, "round " + round + ": state " + state.get());
            }
        }
    }
}
