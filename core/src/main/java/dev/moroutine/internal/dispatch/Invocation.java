package dev.moroutine.internal.dispatch;

import dev.moroutine.Signal;
import java.time.Duration;

/**
 * A task as it crosses the {@link Worker} seam: the moroutine's id, its arguments and its own
 * timeout. Each argument is a value, a {@link TaskArg} (another invocation, resolved on the
 * worker and cached there) or a {@link StreamArg} (a stream {@link Endpoint}, bound per execution). Immutable; an
 * invocation is a task-arg cache key by identity, so {@link #equals} and {@link #hashCode} are
 * {@link Object}'s, and final.
 *
 * <p>A backend in another process needs only {@link #id()} and {@link #args()}; the thread backend
 * calls {@link #invoke} directly, which saves looking the function up by id on every run.
 */
public abstract class Invocation {

    private final Object[] args;

    /**
     * Describes an invocation.
     *
     * @param args the arguments: values, {@link TaskArg}s and {@link StreamArg}s
     */
    protected Invocation(Object[] args) {
        this.args = args;
    }

    /**
     * Whether an argument is a {@link StreamArg}.
     *
     * @param args the arguments
     * @return whether one is
     */
    protected static boolean anyStreamArg(Object[] args) {
        return any(args, StreamArg.class);
    }

    private static boolean any(Object[] args, Class<?> kind) {
        for (Object arg : args) {
            if (kind.isInstance(arg)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The moroutine's identity, {@code "class#field"}.
     *
     * @return the id
     */
    public abstract String id();

    /**
     * Runs the moroutine's function in this process.
     *
     * @param resolved the arguments with task-args, endpoints and signals replaced by what the function sees
     * @return the result (null for a streaming moroutine, which writes to its output endpoint)
     * @throws Exception whatever the function throws
     */
    protected abstract Object invoke(Object[] resolved) throws Exception;

    /**
     * The arguments as given; never modified.
     *
     * @return the arguments
     */
    public final Object[] args() {
        return args;
    }

    /**
     * The task's own timeout; none here: a subclass whose tasks carry one says so.
     *
     * @return the timeout, or null for the pool's, or none
     */
    public Duration timeout() {
        return null;
    }

    /** The same object: an invocation is a cache key by identity. */
    @Override
    public final boolean equals(Object other) {
        return this == other;
    }

    /** The identity hash: an invocation is a cache key by identity. */
    @Override
    public final int hashCode() {
        return System.identityHashCode(this);
    }

    /**
     * Whether an argument (not counting a task-arg's) is a {@link Signal}. Looks each time: a run in
     * this process asks once, on its worker, which reads the arguments next anyway (a backend that
     * sends the task elsewhere asks on the caller, which encodes the arguments anyway).
     *
     * @return whether the task takes a signal
     */
    public final boolean takesSignal() {
        return any(args, Signal.class);
    }

    /**
     * Whether an argument is a {@link StreamArg}. Looks at the arguments each time: a subclass that
     * knows already (see {@code Call}) says so without reading them.
     *
     * @return whether an execution has endpoint arguments to bind
     */
    public boolean takesStream() {
        return anyStreamArg(args);
    }
}
