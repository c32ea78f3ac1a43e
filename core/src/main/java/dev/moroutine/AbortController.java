package dev.moroutine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fires a {@link Signal}: {@code abort()} sets it once and runs its {@code onAbort} actions.
 *
 * <pre>{@code
 * var controller = new AbortController();
 * Task<Long> job = countUntilAborted.call(controller.signal());
 * var result = job.future();
 * controller.abort("enough");
 * }</pre>
 *
 * <p>Thread-safe: any thread may abort; only the first call has an effect.
 */
public final class AbortController {

    private final Token signal = new Token();

    /** Makes a controller whose signal has not fired. */
    public AbortController() {}

    /**
     * The signal this controller fires.
     *
     * @return the signal, the same object every time
     */
    public Signal signal() {
        return signal;
    }

    /** Fires the signal with the reason {@code "aborted"}; does nothing if it has fired. */
    public void abort() {
        abort("aborted");
    }

    /**
     * Fires the signal and runs its actions on this thread; does nothing if it has fired. An action
     * that throws an exception is logged and skipped; an {@link Error} from an action is rethrown
     * here, after every other action has run.
     *
     * @param reason why, shown by {@link Signal#reason()} and in {@link Signal#throwIfAborted()}'s exception
     * @throws NullPointerException if {@code reason} is null
     */
    public void abort(String reason) {
        signal.fire(Objects.requireNonNull(reason, "reason"));
    }

    private static final class Token implements Signal {
        private final Set<Runnable> actions = ConcurrentHashMap.newKeySet();
        private volatile String reason;

        private static final VarHandle REASON;

        static {
            try {
                REASON = MethodHandles.lookup().findVarHandle(Token.class, "reason", String.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        void fire(String why) {
            if (!REASON.compareAndSet(this, null, why)) {
                return;
            }
            Error firstError = null;
            for (Runnable action : actions) {
                if (actions.remove(action)) {
                    try {
                        runQuietly(action);
                    } catch (Error error) {
                        if (firstError == null) {
                            firstError = error;
                        } else {
                            firstError.addSuppressed(error);
                        }
                    }
                }
            }
            if (firstError != null) {
                throw firstError; // after every action has run
            }
        }

        @Override
        public boolean aborted() {
            return reason != null;
        }

        @Override
        public String reason() {
            return reason;
        }

        @Override
        public void throwIfAborted() {
            String why = reason;
            if (why != null) {
                throw new CancellationException("signal aborted: " + why);
            }
        }

        @Override
        public Registration onAbort(Runnable action) {
            Objects.requireNonNull(action, "action");
            // A distinct wrapper per registration, so the same Runnable can be registered twice.
            Runnable entry = action::run;
            actions.add(entry);
            // Fired between the add and here: the firing thread may have missed the entry.
            if (reason != null && actions.remove(entry)) {
                runQuietly(entry);
            }
            return () -> actions.remove(entry);
        }

        private static void runQuietly(Runnable action) {
            try {
                action.run();
            } catch (RuntimeException e) {
                System.getLogger(AbortController.class.getName())
                        .log(System.Logger.Level.WARNING, "an onAbort action threw", e);
            }
        }

        @Override
        public String toString() {
            String why = reason;
            return why == null ? "Signal[not aborted]" : "Signal[aborted: " + why + "]";
        }
    }
}
