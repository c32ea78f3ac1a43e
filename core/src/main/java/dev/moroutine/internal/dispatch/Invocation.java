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
    private final Duration timeout; // null: the pool's, or none
    /** Whether an argument is a {@link StreamArg}, which each execution binds; found once. */
    private final boolean takesStream;

    /**
     * Describes an invocation.
     *
     * @param args the arguments: values, {@link TaskArg}s and {@link StreamArg}s
     * @param timeout its own timeout, or null
     */
    protected Invocation(Object[] args, Duration timeout) {
        this(args, timeout, true);
    }

    /**
     * Describes an invocation whose arguments may be known to be plain values. Then the calling
     * thread never reads the arguments themselves: reading an argument's class may miss the cache
     * (a boxed item of a large batch, say), while the worker reads them anyway.
     *
     * @param args the arguments
     * @param timeout its own timeout, or null
     * @param mayTakeStream false if no argument is a {@link TaskArg} or {@link StreamArg} (which only
     *     a task-arg parameter makes), true to look
     */
    protected Invocation(Object[] args, Duration timeout, boolean mayTakeStream) {
        this.args = args;
        this.timeout = timeout;
        this.takesStream = mayTakeStream && any(args, StreamArg.class);
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
     * The task's own timeout.
     *
     * @return the timeout, or null for the pool's, or none
     */
    public final Duration timeout() {
        return timeout;
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
     * Whether an argument is a {@link StreamArg}.
     *
     * @return whether an execution has endpoint arguments to bind
     */
    public final boolean takesStream() {
        return takesStream;
    }
}
