package dev.moroutine.jcstress;

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
 * The hand-shake between a {@code StreamFeeder} (isolated module, the caller's JVM) and its worker's
 * pump, modelled operation for operation, since the isolated classes need a worker JVM to construct
 * (keep it in step with {@code IsolatedWorker.wake()} and {@code idle()}). The feeder does
 * {@code queue.offer(item)} on a JCTools {@link SpscArrayQueue} (an ordered store, no StoreLoad
 * fence), then {@code IsolatedWorker.wake()}: a full fence, then a volatile read of {@code parked}.
 * The pump's {@code idle()} writes {@code parked = 1} (volatile), then {@code hasWork()} reads
 * {@code !queue.isEmpty()}, and if it sees nothing calls {@code selector.select()} with no timeout.
 * Outcome "0, 0" is the lost wake-up: the feeder saw the pump awake and did not wake it, and the pump
 * saw no item and sleeps for good. Without the fence it was seen in 8 of 8 quick-mode
 * configurations (0.05–0.14% of samples).
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
        VarHandle.fullFence();
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
