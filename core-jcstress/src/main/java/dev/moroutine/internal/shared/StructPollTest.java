package dev.moroutine.internal.shared;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.shared.Shared;
import dev.moroutine.shared.Struct;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

/**
 * A thread that polls a struct with {@link Struct#load()} sees another thread's store and stops.
 * The generated load reads fields of 32 bits or fewer plain, after one load-load fence
 * ({@link StructAccessors}). Plain reads carry no promise of their own that a loop reads them
 * again (a heap field read plain in this loop is read once, before it, and the poller spins
 * forever); the fence is what promises it. JDK 25's C2 keeps these off-heap reads in the loop even
 * without the fence, so this test guards the promise rather than the fence alone.
 */
@JCStressTest(Mode.Termination)
@Description("Struct: a load in a polling loop reads memory afresh and sees a store")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the poller saw the store")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the poller never saw the store: its read was taken out of the loop")
@State
public class StructPollTest {

    /** The polled record: a flag and a count, two plain-read fields of different widths. */
    public record Flag(int up, short count) {}

    private final Struct<Flag> flag = Shared.shared(new Flag(0, (short) 0));

    @Actor
    public void poller() {
        while (flag.load().up() == 0) {
            // Empty: Thread.onSpinWait() is a barrier to the JIT too, and would hide a missing fence.
        }
    }

    @Signal
    public void raise() {
        flag.store(new Flag(1, (short) 1));
    }
}
