package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.jcstress.Watchdog;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link Pipe#awaitReady}, a forwarder's wait with a deadline (a cluster member's pull), against an
 * emit: the wait announces itself as a parked consumer, fences and looks at the queue once more
 * before it parks, as {@code next()} does, against the emit's item store, fence and read of
 * {@code consumerParked}. The emit is put off by a different short spin in each state (0 to about a
 * microsecond), so that across states it sweeps the wait's few spins before it announces itself and
 * parks: the store-buffer window, a few nanoseconds wide, where the wait's {@code consumerParked}
 * store and the emit's item store are each still unseen by the other's load, is hit far more often
 * than when both start at once; without the wait's StoreLoad fence it ends in (-1, -1). Nothing else
 * wakes the wait (no finish follows the emit), and its deadline is beyond the watchdog's limit, so a
 * lost wake-up shows as -1 rather than as a timed-out wait. Outcomes: the wait (1 ready; 0 timed
 * out; -1 lost), then the item taken after it.
 */
@JCStressTest
@Description("Pipe.awaitReady: a waiting forwarder against an emit that lands anywhere around the wait's announcement")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "woken by the item, or saw it before it parked")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: a wait that never ended")
@Outcome(expect = FORBIDDEN, desc = "a wait that gave up early, or an item lost")
@State
public class PipeAwaitReadyTest {

    private static final long DEADLINE_NANOS = 2 * Watchdog.LIMIT.toNanos();
    private static int seed;

    @SuppressWarnings("unchecked") // a pipe of integers
    private final Pipe<Integer> pipe = (Pipe<Integer>) (Pipe<?>) Pipe.forwarding(1, "jcstress forwarding pipe");
    /** How many spins the emit waits: states are made by one thread, so a plain counter spreads them. */
    private final int delay = (seed = seed * 1_103_515_245 + 12_345) >>> 26;

    @Actor
    public void producer() {
        for (int i = 0; i < delay; i++) {
            Thread.onSpinWait();
        }
        PipeEnds.emit(pipe, 1);
    }

    @Actor
    public void forwarder(II_Result r) {
        r.r1 = Watchdog.bounded(() -> {
            try {
                return pipe.awaitReady(System.nanoTime() + DEADLINE_NANOS) ? 1 : 0;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt(); // the watchdog's: bounded clears it
                return Watchdog.LOST;
            }
        });
        r.r2 = r.r1 == 1 ? PipeEnds.next(pipe) : Watchdog.LOST;
    }
}
