package dev.moroutine.internal.stream;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.moroutine.jcstress.Watchdog;
import dev.moroutine.stream.LiveStream;
import java.util.concurrent.CancellationException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * A channel's consumer end closed from another thread while it waits for its source's next item
 * (a worker JVM's feeder, closed by the pump once its task has returned): the end records its
 * thread ({@code waiting}), then reads {@code closed} at each look of its wait; the close sets
 * {@code closed}, then reads {@code waiting} and unparks that thread. The source is a pipe that
 * never gets an item, and a second end stays open, so the channel does not end and close the source:
 * only that pairing can end the wait. The close is put off by a different short spin in each state,
 * so that it lands anywhere around the end's record and its park. Outcome: what the waiting
 * {@code next()} returned (1 the end; -1 a wait that never ended).
 */
@JCStressTest
@Description("ChannelImpl: a consumer end closed from another thread while it waits for its source")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "the close ended the wait, or came before it")
@Outcome(id = "-1", expect = FORBIDDEN, desc = "a lost wake-up: the closed end waits for an item that never comes")
@Outcome(expect = FORBIDDEN, desc = "anything else: an item from nowhere, or a failure")
@State
public class ChannelEndCloseTest {

    private static int seed;

    private final Pipe<Integer> source = new Pipe<>(4, "jcstress source pipe");
    private final ChannelImpl<Integer> channel = new ChannelImpl<>(new LiveStreamImpl<Integer>(source, "jcstress source"), 4);
    private final ItemSource waiting = ((LiveStreamImpl<?>) channel.join()).source();
    /** Keeps the channel open: while it counts, the close of the other end closes nothing else. */
    @SuppressWarnings("unused")
    private final LiveStream<Integer> other = channel.join();
    /** How many spins the close waits: states are made by one thread, so a plain counter spreads them. */
    private final int delay = (seed = seed * 1_103_515_245 + 12_345) >>> 26;

    @Actor
    public void consumer(I_Result r) {
        r.r1 = Watchdog.bounded(() -> {
            try {
                return waiting.next() == ItemSource.END ? 1 : 0;
            } catch (CancellationException interrupted) {
                return Watchdog.LOST; // the watchdog's interrupt
            }
        });
    }

    @Actor
    public void closer() {
        for (int i = 0; i < delay; i++) {
            Thread.onSpinWait();
        }
        waiting.cancel();
    }
}
