package dev.moroutine.review;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jctools.queues.SpscArrayQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Review of branch istream (0d1681e): the hand-shake between a {@code StreamFeeder} (isolated
 * module, caller's JVM) and its worker's pump, copied operation for operation, since the isolated
 * classes need a worker JVM to construct. The feeder does {@code queue.offer(item)} on a JCTools
 * {@link SpscArrayQueue} (an ordered store, no StoreLoad fence), then {@code IsolatedWorker.wake()},
 * whose first act is a volatile read of {@code parked}. The pump's {@code idle()} writes
 * {@code parked = 1} (volatile), then {@code hasWork()} reads {@code feedsWaiting()}:
 * {@code !queue.isEmpty()}, and if it sees nothing calls {@code selector.select()} with no
 * timeout. Outcome "0, 0" is the lost wake-up: the feeder saw the pump awake and did not wake it,
 * and the pump saw no item and sleeps for good (after the feeder's END, or while the feeder waits
 * for credit that only those items can bring).
 */
@JCStressTest
@Description("StreamFeeder.offer + IsolatedWorker.wake against IsolatedWorker.idle")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both see each other")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the feeder wakes the parked pump")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the pump sees the item before it sleeps")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: the pump sleeps with an item queued")
@State
public class FeederPumpWakeTest {

    private static final VarHandle PARKED;

    static {
        try {
            PARKED = MethodHandles.lookup().findVarHandle(FeederPumpWakeTest.class, "parked", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final SpscArrayQueue<Object> queue = new SpscArrayQueue<>(4);
    private volatile int parked;

    /** StreamFeeder.feed: {@code queue.offer(item); wakePump.run();}, wake() as in IsolatedWorker. */
    @Actor
    public void feeder(II_Result r) {
        queue.offer("item");
        if (parked != 0 && PARKED.compareAndSet(this, 1, 0)) {
            r.r1 = 1; // selector.wakeup()
        }
    }

    /** IsolatedWorker.idle: {@code parked = 1; … if (hasWork()) …; else selector.select();}. */
    @Actor
    public void pump(II_Result r) {
        parked = 1;
        r.r2 = queue.isEmpty() ? 0 : 1;
    }
}
