package dev.moroutine.internal.dispatch;

import dev.moroutine.Signal;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Signal} argument as a running task sees it: the caller's signal, which also fires when
 * this run is stopped from outside (cancelled with {@code cancel(true)}, over its timeout, or
 * force-stopped with its worker), so a task that polls its signal stops then too. The caller's
 * own signal does not fire: other tasks may share it.
 */
final class RunSignal implements Signal {

    private final Signal given;
    private final Signal stop;

    /** A view of {@code given} that also fires with {@code stop}, the run's own signal. */
    RunSignal(Signal given, Signal stop) {
        this.given = given;
        this.stop = stop;
    }

    @Override
    public boolean aborted() {
        return stop.aborted() || given.aborted();
    }

    @Override
    public String reason() {
        String why = stop.reason();
        return why != null ? why : given.reason();
    }

    @Override
    public void throwIfAborted() {
        stop.throwIfAborted();
        given.throwIfAborted();
    }

    @Override
    public Registration onAbort(Runnable action) {
        Objects.requireNonNull(action, "action");
        AtomicBoolean ran = new AtomicBoolean();
        Runnable once = () -> {
            if (ran.compareAndSet(false, true)) {
                action.run();
            }
        };
        Registration onStop = stop.onAbort(once);
        Registration onGiven = given.onAbort(once);
        return () -> {
            onStop.close();
            onGiven.close();
        };
    }

    @Override
    public String toString() {
        return stop.aborted() ? stop.toString() : given.toString();
    }
}
