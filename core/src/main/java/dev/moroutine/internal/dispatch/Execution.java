package dev.moroutine.internal.dispatch;

import dev.moroutine.AbortController;
import dev.moroutine.Signal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;

/**
 * One run of an {@link Invocation}: the queue element and, at once, the future its caller holds, so a
 * dispatch allocates one object besides the task. Its {@link Endpoint}s are bound once per
 * execution (see {@link Endpoint.Binding} for the order of the steps). It completes exactly once, and whichever comes
 * first wins: with the result; with the moroutine's exception; with a {@link TimeoutException}
 * when it runs over its timeout; or with a {@link CancellationException} when it is cancelled or
 * its worker stops first. A {@code CancellationException} thrown by the moroutine itself (say from
 * {@link Signal#throwIfAborted()}) is stored wrapped in a {@link CompletionException}, as
 * {@link CompletableFuture#supplyAsync} stores it, so that {@link #isCancelled()} means "stopped
 * from outside" and the blocking calls report it as a failure.
 *
 * <h2>Stopping a running execution</h2>
 * <pre>
 * QUEUED ──its worker takes it──► RUNNING ──the worker leaves it──► ENDED
 *   └──stealable: one worker claims it──► CLAIMED ──► RUNNING
 *                                   └──a stopper interrupts it──► INTERRUPTING ──interrupt sent──► INTERRUPTED
 * </pre>
 * A stopper ({@code cancel(true)}, the timeout, a force-stop, a stream consumer that closes) first
 * completes the execution; only the one that wins that race goes on. If the worker has taken the
 * execution, the stopper fires the run's stop signal (seen through each {@link RunSignal}
 * argument) and, to interrupt, moves RUNNING to INTERRUPTING, interrupts the run and sets
 * INTERRUPTED. The worker writes RUNNING, then fences ({@link #begin}), before it checks whether
 * the execution is complete, and a stopper completes it before it reads the state, so either the
 * worker skips the execution or the stopper sees it running. A worker that did not complete the
 * execution itself (skipped, lost the race, or died) may have a stopper at work, so it leaves by
 * moving RUNNING to ENDED; if a stopper got there first, it waits for INTERRUPTED, and {@link
 * ThreadWorker} clears the interrupt after every task. So an interrupt aimed at one execution never
 * reaches the next one on that thread, and a worker that completes an execution without a timeout
 * itself pays no CAS.
 *
 * <p>A stealable execution waits in its worker's queue, where an idle worker of the same pool may
 * also find it (see {@link ThreadWorker}). Its worker and any such thief claim it with a CAS from
 * QUEUED to CLAIMED, so exactly one runs it; the one that wins writes itself as the execution's
 * worker before it writes RUNNING, so a stopper that sees RUNNING interrupts the thread that runs
 * it. A stopper treats CLAIMED as QUEUED: the worker's check after RUNNING skips an execution
 * completed meanwhile.
 *
 * <p>The timer is the one stopper that goes on when it loses the race: a future completed from
 * outside ({@code cancel(false)}, {@code complete}, {@code orTimeout}, or a stopper that does not
 * interrupt) leaves the function running, and its timeout must still stop it. So a worker whose
 * run has a timer leaves through the hand-shake as soon as the function returns, before it
 * completes the execution: until then the execution is complete only if someone else completed
 * it (the worker's own completion then fails, and it runs no dependent stage with the timer's
 * interrupt), and from then on nobody interrupts the run.
 *
 * @param <R> the result type
 */
public final class Execution<R> extends CompletableFuture<R> {

    private static final int RUNNING = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;
    private static final int ENDED = 4;
    /** Taken by a worker that is not yet RUNNING it: its stopper leaves it to the worker's isDone() check. */
    private static final int CLAIMED = 5;

    private static final VarHandle RUN_STATE;

    static {
        try {
            RUN_STATE = MethodHandles.lookup().findVarHandle(Execution.class, "runState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Invocation invocation;
    /**
     * Written by the dispatching thread before the queue hand-off (again for each worker a batch
     * offers it to, if one refuses it), and by a worker that takes it from another ({@link #claim}).
     */
    private Worker worker;
    /**
     * 0 (QUEUED) until its worker takes it, then RUNNING and on. Left at its default rather than set
     * to a constant: an initializer would be a volatile store, a full fence in every dispatch.
     */
    private volatile int runState;
    /** Whether another worker of the pool may take it while it waits: written before the queue hand-off. */
    private boolean stealable;
    /** The {@code runAll} it belongs to, and its position there; null for none. Written before the queue hand-off. */
    private Batch batch;
    private int indexInBatch;
    /**
     * What only some executions have (see {@link Extras}); null for none. Volatile for the
     * settlement's hand-shake (see {@link #onSettled}), which may be the write that sets it.
     */
    private volatile Extras extras;

    /**
     * An execution of {@code invocation}, binding each of its endpoint arguments now (an ended
     * channel refuses the task here).
     *
     * @param invocation the task
     * @param output the binding of the function's own output stream, or null for a value moroutine
     */
    public Execution(Invocation invocation, Endpoint.Binding output) {
        this.invocation = invocation;
        Endpoint.Binding[] bindings = bindAll(invocation, output);
        if (bindings != null) {
            extras = new Extras(bindings);
            whenComplete((ignored, failure) -> {
                for (Endpoint.Binding binding : bindings) {
                    if (binding != null) {
                        binding.completed(failure);
                    }
                }
            });
        }
    }

    /** Binds the endpoints among {@code args}; if one refuses, releases those already bound. */
    static Endpoint.Binding[] bindAll(Invocation invocation, Endpoint.Binding output) {
        Object[] args = invocation.args();
        Endpoint.Binding[] bound = null;
        try {
            for (int i = 0, end = invocation.takesStream() ? args.length : 0; i < end; i++) {
                if (args[i] instanceof StreamArg stream) {
                    if (bound == null) {
                        bound = new Endpoint.Binding[args.length + 1];
                    }
                    bound[i] = stream.endpoint().bind(invocation);
                }
            }
        } catch (RuntimeException | Error refused) {
            if (bound != null) {
                for (Endpoint.Binding binding : bound) {
                    if (binding != null) {
                        binding.completed(refused);
                    }
                }
            }
            throw refused;
        }
        if (output != null) {
            if (bound == null) {
                bound = new Endpoint.Binding[args.length + 1];
            }
            bound[args.length] = output;
        }
        return bound;
    }

    /**
     * The task this is an execution of.
     *
     * @return the invocation
     */
    public Invocation invocation() {
        return invocation;
    }

    /** One binding per argument position that is an {@link Endpoint} (and one past them for an output); null if none. */
    private Endpoint.Binding[] bindings() {
        Extras known = extras;
        return known != null ? known.bindings : null;
    }

    /**
     * The extras, made if there are none yet: only by the thread that holds the execution then
     * (see {@link Extras}).
     */
    private Extras extras() {
        Extras known = extras;
        if (known == null) {
            known = new Extras(null);
            extras = known;
        }
        return known;
    }

    /**
     * The binding of a streaming call's own output, for a backend that runs the function elsewhere
     * and feeds the items it sends back into what {@link Endpoint.Binding#open} returns here (a
     * backend in this process lets {@code run} open it).
     *
     * @return the output's binding, or null for a value moroutine
     */
    public Endpoint.Binding output() {
        Endpoint.Binding[] bindings = bindings();
        return bindings != null ? bindings[invocation.args().length] : null;
    }

    /**
     * Records the worker the execution is being sent to; its endpoints may refuse it there.
     *
     * @param target the worker
     * @throws IllegalStateException if an endpoint refuses (the execution would wait for itself)
     */
    public void sentTo(Worker target) {
        Endpoint.Binding[] bindings = bindings();
        if (bindings != null) {
            sentTo(bindings, target); // before it is queued where it would wait for itself
        }
        worker = target;
    }

    /** Tells each binding where its task runs; one may refuse (it would wait for itself there). */
    static void sentTo(Endpoint.Binding[] bindings, Worker target) {
        for (Endpoint.Binding binding : bindings) {
            if (binding != null) {
                binding.sentTo(target);
            }
        }
    }

    /**
     * Its worker has admitted it and queues it next: endpoints attach only now (a channel's consumer
     * end, say), so that a task refused before leaves nothing that items go to.
     */
    public void admitted() {
        Endpoint.Binding[] bindings = bindings();
        if (bindings != null) {
            for (Endpoint.Binding binding : bindings) {
                if (binding != null) {
                    binding.admitted();
                }
            }
        }
    }

    /**
     * The binding of an endpoint argument, or of the function's own output (at the position after
     * the arguments), for a backend that runs the function in another process and opens the
     * endpoints itself.
     *
     * @param position the argument's position, or the arity for the output
     * @return the binding, or null if that position is no endpoint
     */
    public Endpoint.Binding binding(int position) {
        Endpoint.Binding[] bindings = bindings();
        return bindings == null || position >= bindings.length ? null : bindings[position];
    }

    /**
     * Why this execution holds its worker, for messages.
     *
     * @return the task, and what its endpoints add
     */
    public String describe() {
        Endpoint.Binding[] bindings = bindings();
        if (bindings != null) {
            for (Endpoint.Binding binding : bindings) {
                String why = binding != null ? binding.holdsWorker() : null;
                if (why != null) {
                    return why;
                }
            }
        }
        return invocation.toString();
    }

    /** Waits like {@link CompletableFuture#join()}, after spinning briefly: the answer is often sub-microsecond. */
    @Override
    public R join() {
        Waiting.spinUntilDone(this, worker.callerSpin(), worker.callerFeed());
        return super.join();
    }

    /** Waits like {@link CompletableFuture#get()}, after spinning briefly: the answer is often sub-microsecond. */
    @Override
    public R get() throws InterruptedException, ExecutionException {
        Waiting.spinUntilDone(this, worker.callerSpin(), worker.callerFeed());
        return super.get();
    }

    /**
     * The worker this execution was sent to.
     *
     * @return the worker
     */
    public Worker worker() {
        return worker;
    }

    /**
     * Lets an idle worker of its pool take this execution while it waits, unless it binds endpoints
     * (which were told where it runs); before the queue hand-off, by the dispatching thread.
     *
     * @return whether it may be taken
     */
    boolean allowStealing() {
        stealable = bindings() == null;
        return stealable;
    }

    /**
     * What a worker is told when one of its executions completes: the result, or the exception
     * stored (a {@link CancellationException} if it was cancelled).
     */
    @FunctionalInterface
    public interface Settlement {
        /**
         * The execution completed. Called once, on the thread that completed it, after its
         * dependent stages ran; it must not throw (what it throws, but a {@link VirtualMachineError},
         * goes to that thread's uncaught exception handler, not to the completer).
         *
         * @param value the result, or null if it failed
         * @param failure the exception stored, or null if it succeeded
         */
        void settled(Object value, Throwable failure);
    }

    /**
     * Tells {@code listener} when this execution completes by {@link #complete}, {@link
     * #completeExceptionally} or {@link #cancel} (which cover its own completions, a caller's and
     * {@code orTimeout}/{@code completeOnTimeout}; not {@code obtrude…} or {@code completeAsync}).
     * It is what {@code whenComplete} would do, for a worker that must learn of every completion
     * of every task, without the two objects and the CAS that a dependent stage costs per task.
     * One listener: a second call replaces the first. A completion that came before this call is
     * not told: the worker looks at {@link #isDone()} again after it, where it must (a volatile
     * write here, a volatile read there, so one of them sees the other).
     *
     * @param listener what to tell; null for nobody
     */
    public void onSettled(Settlement listener) {
        if (listener != null || extras != null) {
            extras().settlement = listener;
        }
    }

    @Override
    public boolean complete(R value) {
        if (!super.complete(value)) {
            return false;
        }
        tell(value, null);
        return true;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        if (!super.completeExceptionally(failure)) {
            return false;
        }
        tell(null, failure);
        return true;
    }

    private void tell(Object value, Throwable failure) {
        Extras known = extras;
        Settlement listener = known != null ? known.settlement : null;
        if (listener == null) {
            return;
        }
        try {
            listener.settled(value, failure);
        } catch (VirtualMachineError fatal) {
            throw fatal; // as from the function: its worker thread is replaced
        } catch (Throwable broken) { // the completer (a worker, a canceller) must go on
            Thread current = Thread.currentThread();
            current.getUncaughtExceptionHandler().uncaughtException(current, broken);
        }
    }

    /** Joins a batch before it is sent; see {@link Batch#add}. */
    void joinBatch(Batch joined, int index) {
        batch = joined;
        indexInBatch = index;
    }

    /** The batch it belongs to, or null. */
    Batch batch() {
        return batch;
    }

    /** Its position in its batch. */
    int indexInBatch() {
        return indexInBatch;
    }

    /** Whether a worker has claimed (or run) it: it no longer waits to be taken. */
    boolean claimed() {
        return runState != 0;
    }

    /** Whether workers race to {@link #claim} it: its own worker claims it too before running it. */
    boolean stealable() {
        return stealable;
    }

    /**
     * Takes a stealable execution for {@code taker}: its own worker or, while it waits, another of its pool.
     *
     * @param taker the worker that runs it if this returns true
     * @return whether {@code taker} runs it: nobody took it first
     */
    boolean claim(Worker taker) {
        if (!RUN_STATE.compareAndSet(this, 0, CLAIMED)) {
            return false;
        }
        worker = taker; // before RUNNING: a stopper that sees RUNNING interrupts the taker's thread
        return true;
    }

    /**
     * Marks this execution RUNNING on the current worker thread, which then calls {@link #run}: its
     * stop signal first (a stopper that sees RUNNING fires it), then RUNNING, then a full fence. The
     * fence orders RUNNING before {@code run}'s {@code isDone()} check (see the class comment), and
     * with it whatever the worker stored before this call before whatever it reads after: {@link
     * ThreadWorker} publishes the execution it runs, for a forced stop to find, and reads its
     * lifecycle after this, so that one fence a task serves both hand-shakes: each fence waits for
     * what the thread still fetches from the caller's core, which costs most where lines cross cores
     * slowly (1,024 noop tasks in flight on one worker, paired one-JVM runs: 10.1 M tasks/s with one
     * fence against 9.1 with a volatile store of each, in such a state; level within the noise in others).
     */
    void begin() {
        if (invocation.takesSignal()) {
            extras().stopSignal = new AbortController();
        }
        RUN_STATE.setRelease(this, RUNNING);
        VarHandle.fullFence();
    }

    /**
     * Runs the call on the current worker thread, after {@link #begin}, unless it is already complete (cancelled), and
     * completes this future; {@code beforeCompletion} runs first, so that whoever sees the future
     * complete also sees the worker's bookkeeping done. Any throwable fails the execution, except a
     * {@link VirtualMachineError}, which ends the worker thread (it then gets replaced). A timeout
     * (the task's, or else its pool's) is counted from here.
     */
    @SuppressWarnings("unchecked") // the invocation returns the moroutine's R
    void run(WorkerContext context, Runnable beforeCompletion) {
        Extras known = extras; // begin() made the stop signal, if the call takes one: its arguments are not scanned again
        AbortController stop = known != null ? known.stopSignal : null;
        boolean completedHere = false;
        boolean left = false;
        try {
            if (isDone()) {
                beforeCompletion.run();
                return;
            }
            Duration timeout = timeout();
            ScheduledFuture<?> timer = timeout != null ? Timeouts.schedule(() -> timedOut(timeout), timeout) : null;
            Object result;
            Throwable failure = null;
            try {
                result = context.invoke(invocation, bindings(), worker, stop != null ? stop.signal() : null);
            } catch (VirtualMachineError fatal) {
                throw fatal;
            } catch (Throwable thrown) {
                result = null;
                failure = thrown;
            } finally {
                if (timer != null) {
                    timer.cancel(false); // removes it from the timer's queue: nothing stays behind
                }
            }
            if (timer != null) { // a timer that has started stops the run even if it loses: see the class comment
                leave();
                left = true;
            }
            beforeCompletion.run();
            completedHere = failure == null
                    ? complete((R) result)
                    : completeExceptionally(failure instanceof CancellationException ? new CompletionException(failure) : failure);
        } finally {
            if (!completedHere && !left) {
                leave();
            }
        }
    }

    /** The task's own timeout, or else its pool's; null for none. */
    private Duration timeout() {
        Duration own = invocation.timeout();
        if (own != null) {
            return own;
        }
        WorkerGroup group = worker.group();
        return group != null ? group.taskTimeout() : null;
    }

    private void timedOut(Duration timeout) {
        TimeoutException late = new TimeoutException(invocation + " did not finish within its timeout of " + timeout + " on "
                + worker + ", so it was interrupted; give it more time with withTimeout(…) on the task or"
                + " withTaskTimeout(…) on the pool");
        if (!stop(late, true)) {
            halt(late.getMessage(), true); // its future was completed from outside, but the function runs on
        }
    }

    /**
     * Completes this execution with {@code outcome}, unless it is complete already; if its worker is
     * running it, fires its stop signal and, if asked, interrupts exactly this run.
     *
     * @return whether this call completed the execution
     */
    private boolean stop(Throwable outcome, boolean interrupt) {
        if (!completeExceptionally(outcome)) {
            return false;
        }
        halt(outcome.getMessage(), interrupt);
        return true;
    }

    /**
     * If its worker is running this execution, fires its stop signal and, if asked, interrupts
     * exactly this run. Only for the stopper that completed the execution, or its timer.
     */
    private void halt(String reason, boolean interrupt) {
        if (runState == RUNNING) {
            Extras known = extras;
            AbortController stop = known != null ? known.stopSignal : null;
            try {
                if (stop != null) {
                    stop.abort(reason);
                }
            } finally { // an Error from a signal action must not leave the task running
                if (interrupt && RUN_STATE.compareAndSet(this, RUNNING, INTERRUPTING)) {
                    try {
                        worker.interruptRun();
                    } finally { // even if interrupting threw, the worker must not wait in leave() forever
                        runState = INTERRUPTED;
                    }
                }
            }
        }
    }

    /** The worker leaves an execution it did not complete, or whose timer was set: a stopper may be interrupting this very run. */
    private void leave() {
        if (RUN_STATE.compareAndSet(this, RUNNING, ENDED)) {
            return;
        }
        // A stopper is between its CAS and its interrupt: wait, so that the interrupt lands now, on this run.
        for (int spins = 1; runState != INTERRUPTED; spins++) {
            if ((spins & 63) == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Cancels this execution. With {@code mayInterruptIfRunning}, a running one also has its
     * {@link Signal} arguments fire and its worker thread interrupted, for this run only: the
     * interrupt never reaches the worker's next task. A queued one is skipped either way.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        CancellationException cancelled = new CancellationException(invocation + " was cancelled");
        boolean now = mayInterruptIfRunning ? stop(cancelled, true) : completeExceptionally(cancelled);
        return now || isCancelled();
    }

    /**
     * Cancels this execution for a reason of the library's; a running one has its {@link Signal} arguments fire.
     *
     * @param why the reason, for the message
     */
    public void cancel(String why) {
        stop(new CancellationException(why + " (" + invocation + ")"), false);
    }

    /**
     * What only some executions have, kept out of the execution itself so that a plain one is 48
     * bytes rather than 56: the bindings of its endpoint arguments, its stop signal and the
     * listener told when it completes. Made by the first that needs it: the constructor (for
     * endpoints), {@link #onSettled} (a worker JVM's dispatching thread, or its child before the dispatch) or
     * {@link #begin} (a task that takes a {@link Signal}), each on the thread that holds the
     * execution at that moment, so two are never made for one execution.
     */
    private static final class Extras {
        /** One binding per argument position that is an {@link Endpoint} (and one past them for an output); null if none. */
        final Endpoint.Binding[] bindings;
        /** Fires when the running execution is stopped; null if the call takes no {@link Signal}. Written before RUNNING. */
        AbortController stopSignal;
        /** Told when the execution completes; null for nobody. See {@link #onSettled}. */
        volatile Settlement settlement;

        Extras(Endpoint.Binding[] bindings) {
            this.bindings = bindings;
        }
    }
}
