package dev.moroutine.internal.call;

import dev.moroutine.Mo;
import dev.moroutine.Task;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.StreamArg;
import dev.moroutine.internal.dispatch.TaskArg;
import dev.moroutine.internal.dispatch.Timeouts;
import dev.moroutine.internal.dispatch.Waiting;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.internal.dispatch.WorkerGroup;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * The implementation of {@link Task} for value moroutines (and, through the stream layer's
 * subclass, for streaming ones): an {@link Invocation} of a moroutine's definition with its arguments (values,
 * {@link TaskArg}s or {@link StreamArg}s) and, optionally, the worker it is assigned to and its
 * timeout. Immutable.
 *
 * <p>A {@code Call} is a task-arg cache key by identity, so it deliberately keeps
 * {@link Object#equals} and {@link Object#hashCode}. It is not sealed: its one subclass lives in
 * the stream layer above, which this layer does not name.
 *
 * @param <R> the result type
 */
public non-sealed class Call<R> extends Invocation implements Task<R> {

    private final Definition definition;
    /** Its assignment, own timeout and stream flag: see {@link Settings}. */
    private final Settings settings;

    /**
     * Describes a call.
     *
     * @param definition the moroutine
     * @param args its arguments: values, {@link TaskArg}s or {@link StreamArg}s
     * @param assigned the worker it is pinned to, or null
     * @param timeout its own timeout, or null
     */
    protected Call(Definition definition, Object[] args, Worker assigned, Duration timeout) {
        this(definition, args, Settings.of(assigned, timeout, anyStreamArg(args)));
    }

    private Call(Definition definition, Object[] args, Settings settings) {
        super(args);
        this.definition = definition;
        this.settings = settings;
    }

    /**
     * Describes a call whose arguments are all plain values. Then the calling thread never reads
     * the arguments themselves: reading an argument's class may miss the cache (a boxed item of a
     * large batch, say), while the worker reads them anyway.
     *
     * @param definition the moroutine
     * @param args its arguments, none a {@link TaskArg} or {@link StreamArg}
     * @param <R> the result type
     * @return the call
     */
    static <R> Call<R> ofValues(Definition definition, Object[] args) {
        return new Call<>(definition, args, Settings.PLAIN);
    }

    /**
     * The task as a {@code Call}.
     *
     * @param task a task
     * @param <R> the result type
     * @return the same object
     * @throws NullPointerException if {@code task} is null
     * @throws IllegalArgumentException if it is a channel, which is not run by itself
     */
    public static <R> Call<R> of(Task<R> task) {
        if (Objects.requireNonNull(task, "task") instanceof Call<R> call) {
            return call;
        }
        throw new IllegalArgumentException(task + " is a channel, which does not run on a worker: pass it as the Stream"
                + " or Iterable argument of the tasks that consume it, or join() it to consume it on this thread");
    }

    /**
     * This call pinned to a pool worker.
     *
     * @param handle a handle from a pool's {@code workers()}
     * @return a copy that runs only on that worker
     * @throws IllegalArgumentException if {@code handle} is not a moroutine pool's worker
     */
    public Call<R> assignedTo(WorkerHandle handle) {
        if (!(handle instanceof Worker worker) || worker.group() == null) {
            throw new IllegalArgumentException(handle + " is not a worker of a moroutine pool; use a handle from Pool.workers()");
        }
        return copy(worker, timeout());
    }

    @Override
    public Call<R> withTimeout(Duration timeout) {
        return copy(assigned(), Timeouts.check(timeout));
    }

    /**
     * A copy with another assignment and timeout; subclasses keep their own settings.
     *
     * @param worker the worker it is pinned to, or null
     * @param timeout its own timeout, or null
     * @return the copy
     */
    protected Call<R> copy(Worker worker, Duration timeout) {
        return new Call<>(definition, args(), Settings.of(worker, timeout, settings.takesStream));
    }

    /**
     * The moroutine this is a call of.
     *
     * @return the moroutine
     */
    public Mo moroutine() {
        return definition.moroutine();
    }

    /**
     * What this is a call of.
     *
     * @return the moroutine's definition
     */
    protected final Definition definition() {
        return definition;
    }

    /**
     * The worker this call is pinned to.
     *
     * @return the worker, or null
     */
    protected final Worker assigned() {
        return settings.assigned;
    }

    @Override
    public final Duration timeout() {
        return settings.timeout;
    }

    @Override
    public final boolean takesStream() {
        return settings.takesStream;
    }

    @Override
    public String id() {
        return definition.id();
    }

    @Override
    protected Object invoke(Object[] resolved) throws Exception {
        return definition.invoke(resolved);
    }

    /**
     * Where this call runs when it is not given to a pool: its assignment, or its dedicated worker.
     *
     * @return the worker
     */
    public final Worker defaultWorker() {
        Worker assigned = settings.assigned;
        return assigned != null ? assigned : definition.dedicatedWorker();
    }

    @Override
    public CompletableFuture<R> future() {
        return submitTo(defaultWorker());
    }

    @Override
    public R join() {
        return runOn(defaultWorker());
    }

    /**
     * Sends this call to a worker and waits for its result.
     *
     * @param worker where it runs; its pool's settings hold for the run
     * @return the result
     */
    protected R runOn(Worker worker) {
        return Waiting.await(send(worker));
    }

    /**
     * Sends this call to a worker without waiting. Its execution is the future: nothing else is
     * allocated, whatever the compiler inlines.
     *
     * @param worker where it runs; its pool's settings hold for the run
     * @return the future of its result
     */
    protected CompletableFuture<R> submitTo(Worker worker) {
        return send(worker);
    }

    /**
     * Builds this call's execution, binding the endpoints among its arguments (reserving channel
     * ends), without sending it anywhere yet: a batch builds all of its executions first, so that
     * a consumer that drains a channel before another of the batch attaches (when its worker admits
     * it) leaves that one no items rather than a refusal for an ended channel.
     *
     * @param group the pool it will run on, whose settings hold for streams the call sets none for; null for none
     * @return the execution, ready to send
     */
    protected Prepared<R> prepare(WorkerGroup group) {
        Execution<R> execution = new Execution<>(this, null);
        return new Prepared<>(execution, execution);
    }

    /**
     * A call's execution, built but not yet sent to a worker.
     *
     * @param <R> the result type
     */
    public static final class Prepared<R> {
        private final Execution<?> execution;
        private final CompletableFuture<R> result;
        /** A channel's consumer end on the calling thread, reserved, attached when sent; null for a call. */
        private final Endpoint.Binding callerEnd;

        /**
         * A built execution and what its caller receives once it is sent.
         *
         * @param execution the execution
         * @param result the caller's future: the execution itself, or a stream's consumer end
         */
        public Prepared(Execution<?> execution, CompletableFuture<R> result) {
            this(execution, result, null);
        }

        private Prepared(Execution<?> execution, CompletableFuture<R> result, Endpoint.Binding callerEnd) {
            this.execution = execution;
            this.result = result;
            this.callerEnd = callerEnd;
        }

        /**
         * A task that runs on no worker, as a batch's member; {@link #call()} is null. A channel's
         * consumer end on the caller is reserved now and attached when sent, as a call's channel
         * arguments are, so that no consumer of the batch finds the channel ended by another.
         */
        static <R> Prepared<R> attached(Task<R> task) {
            if (task instanceof Endpoint channel) {
                return new Prepared<>(null, new CompletableFuture<>(), channel.bind(null));
            }
            return new Prepared<>(null, task.future());
        }

        /** The execution; null for a task that runs on no worker. */
        Execution<?> execution() {
            return execution;
        }

        /** The call it is an execution of; null for a task that runs on no worker. */
        Call<?> call() {
            return execution != null ? (Call<?>) execution.invocation() : null;
        }

        /**
         * Sends the execution to {@code worker}; if refused, fails it and throws.
         *
         * @param worker where it runs
         * @return the caller's future
         */
        @SuppressWarnings("unchecked") // a channel's end is the LiveStream its Task<R> promises
        public CompletableFuture<R> sendTo(Worker worker) {
            if (execution != null) {
                dispatch(worker, execution);
            } else if (callerEnd != null) {
                result.complete((R) callerEnd.open(null));
            }
            return result;
        }

        /**
         * Sends the execution to {@code worker} for a batch, which places a refused one again: a
         * worker that refuses it never admitted it, so it keeps its reservations (a channel end
         * that another of the batch may have drained meanwhile) for the next worker. Any other
         * failure fails it, as {@link #sendTo} does.
         *
         * @param worker where it runs
         * @return the caller's future
         * @throws RejectedExecutionException if the worker refused it; it is not failed, so the
         *     caller sends it elsewhere or {@linkplain #abandon abandons} it
         */
        CompletableFuture<R> offerTo(Worker worker) {
            try {
                worker.dispatch(execution);
            } catch (RejectedExecutionException refused) {
                throw refused;
            } catch (RuntimeException | Error failed) {
                execution.completeExceptionally(failed);
                throw failed;
            }
            return result;
        }

        /** Fails the execution without sending it, releasing what it attached. */
        void abandon(Throwable why) {
            if (execution != null) {
                execution.completeExceptionally(why);
            } else if (callerEnd != null) {
                callerEnd.completed(why);
            } else if (result.join() instanceof AutoCloseable attached) {
                try {
                    attached.close();
                } catch (Exception e) {
                    why.addSuppressed(e);
                }
            }
        }
    }

    private Execution<R> send(Worker worker) {
        Execution<R> execution = new Execution<>(this, null);
        dispatch(worker, execution);
        return execution;
    }

    /**
     * Hands an execution to a worker; if refused, fails it, so what it attached is released. An
     * Error (a channel's stream task source that cannot start while its channel end attaches) refuses it too.
     */
    static void dispatch(Worker worker, Execution<?> execution) {
        try {
            worker.dispatch(execution);
        } catch (RuntimeException | Error refused) {
            execution.completeExceptionally(refused);
            throw refused;
        }
    }

    @Override
    public String toString() {
        return "task " + definition + (settings.assigned != null ? " assigned to " + settings.assigned : "");
    }

    /**
     * What a call sets besides its moroutine and arguments, in one object so that a plain call is
     * three fields (24 bytes, a quarter less than with each setting its own field): shared by every
     * call that is neither assigned nor timed, allocated only for those that are.
     *
     * @param assigned the worker it is pinned to, or null
     * @param timeout its own timeout, or null
     * @param takesStream whether an argument is a {@link StreamArg}, found once
     */
    private record Settings(Worker assigned, Duration timeout, boolean takesStream) {
        static final Settings PLAIN = new Settings(null, null, false);
        static final Settings STREAMS = new Settings(null, null, true);

        static Settings of(Worker assigned, Duration timeout, boolean takesStream) {
            if (assigned == null && timeout == null) {
                return takesStream ? STREAMS : PLAIN;
            }
            return new Settings(assigned, timeout, takesStream);
        }
    }
}
