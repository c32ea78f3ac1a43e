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
 * {@link Pipe#awaitItems}, a forwarder's wait for a batch (a cluster member's pull), against the
 * two emits that make the batch: the wait writes the count it waits for, announces itself as a
 * lazily parked consumer, fences and looks at the queue's size once more before it parks; each emit
 * stores its item, fences, reads the announcement, then the count, then the size, and wakes it only
 * when the batch is there. The emits are put off by a different short spin in each state, so that
 * they sweep the wait's announcement. Nothing else wakes the wait (no finish follows the emits), and
 * its deadline is beyond the watchdog's limit, so a lost wake-up shows as -1 rather than as a
 * timed-out wait. Outcomes: the wait (1 ready; 0 timed out; -1 lost), then how many items it then
 * finds queued (2: it never ends at the first emit; an early wake shows as 1 when the second emit
 * comes after the count).
 */
@JCStressTest
@Description("Pipe.awaitItems: a forwarder waiting for 2 items against the 2 emits, landing anywhere around its announcement")
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "woken by the second item, or saw both before it parked")
@Outcome(id = ".*-1.*", expect = FORBIDDEN, desc = "a lost wake-up: a wait that never ended")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "woken before the batch was there")
@Outcome(expect = FORBIDDEN, desc = "a wait that gave up early, or an item lost")
@State
public class PipeAwaitItemsTest {

    private static final long DEADLINE_NANOS = 2 * Watchdog.LIMIT.toNanos();
    private static int seed;

    @SuppressWarnings("unchecked") // a pipe of integers
    private final Pipe<Integer> pipe = (Pipe<Integer>) (Pipe<?>) Pipe.forwarding(2, "jcstress forwarding pipe");
    /** How many spins the emits wait: states are made by one thread, so a plain counter spreads them. */
    private final int delay = (seed = seed * 1_103_515_245 + 12_345) >>> 26;

    @Actor
    public void producer() {
        for (int i = 0; i < delay; i++) {
            Thread.onSpinWait();
        }
        PipeEnds.emit(pipe, 1, 2);
    }

    @Actor
    public void forwarder(II_Result r) {
        r.r1 = Watchdog.bounded(() -> {
            try {
                return pipe.awaitItems(2, System.nanoTime() + DEADLINE_NANOS) ? 1 : 0;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt(); // the watchdog's: bounded clears it
                return Watchdog.LOST;
            }
        });
        int queued = 0;
        while (r.r1 == 1 && pipe.poll() != null) { // an early wake shows unless the second emit lands meanwhile
            queued++;
        }
        r.r2 = r.r1 == 1 ? queued : Watchdog.LOST;
    }
}
