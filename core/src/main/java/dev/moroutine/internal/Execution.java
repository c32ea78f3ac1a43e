package dev.moroutine.internal;

import dev.moroutine.AbortController;
import dev.moroutine.Signal;
import dev.moroutine.stream.LiveStream;
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
 * One run of a {@link Call}: the queue element and, at once, the future its caller holds, so a
 * dispatch allocates one object besides the task. It completes exactly once, and whichever comes
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
 *                                   └──a stopper interrupts it──► INTERRUPTING ──interrupt sent──► INTERRUPTED
 * </pre>
 * A stopper ({@code cancel(true)}, the timeout, a force-stop, a stream consumer that closes) first
 * completes the execution; only the one that wins that race goes on. If the worker has taken the
 * execution, the stopper fires the run's stop signal (seen through each {@link RunSignal}
 * argument) and, to interrupt, moves RUNNING to INTERRUPTING, interrupts the worker thread and sets
 * INTERRUPTED. The worker writes RUNNING before it checks whether the execution is complete, and
 * a stopper completes it before it reads the state, so either the worker skips the execution or
 * the stopper sees it running. A worker that did not complete the execution itself (skipped, lost
 * the race, or died) may have a stopper at work, so it leaves by moving RUNNING to ENDED; if a
 * stopper got there first, it waits for INTERRUPTED, and {@link ThreadWorker} clears the interrupt
 * after every task. So an interrupt aimed at one execution never reaches the next one on that
 * thread, and a worker that completes an execution without a timeout itself pays no CAS.
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

    private static final SpinBudget UNKNOWN_WORKER_SPIN = new SpinBudget(20_000);

    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;
    private static final int ENDED = 4;

    private static final VarHandle RUN_STATE;

    static {
        try {
            RUN_STATE = MethodHandles.lookup().findVarHandle(Execution.class, "runState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Call<R> call;
    private final Pipe<Object> pipe;
    /** Written once by the dispatching thread before the queue hand-off. */
    private Worker worker;
    private volatile int runState = QUEUED;
    /** Fires when the running execution is stopped; null if the call takes no {@link Signal}. Written before RUNNING. */
    private AbortController stopSignal;

    /** Consumer ends of the channels among the arguments, reserved now and attached in {@link #admitted}; null if none. */
    private final ChannelImpl.Reserved<?>[] reservedEnds;
    /** The attached ends; written once by the dispatching thread before the queue hand-off. */
    private LiveStream<?>[] channelEnds;

    /**
     * An execution of {@code call}; for a streaming call, {@code pipe} takes its items. A channel
     * argument gets its consumer end reserved now (an ended channel refuses the task) and attached
     * when the task is dispatched, as in the seed: a consumer whose task starts late still gets its
     * share instead of finding the channel ended.
     */
    Execution(Call<R> call, Pipe<Object> pipe) {
        this.call = call;
        this.pipe = pipe;
        this.reservedEnds = ChannelImpl.reserveAll(call.args());
    }

    private static void closeAll(LiveStream<?>[] ends) {
        for (LiveStream<?> end : ends) {
            if (end != null) {
                end.close();
            }
        }
    }

    Call<R> call() {
        return call;
    }

    void sentTo(Worker target) {
        if (reservedEnds != null) {
            ChannelImpl.refuseConsumersOn(target, call); // before it is queued where it would wait for itself
        }
        worker = target;
    }

    /**
     * Its worker has admitted it and queues it next: its channel ends are attached only now, so
     * that a task refused before (by {@link #sentTo}, or by a worker that is stopping) leaves no
     * end that items go to.
     */
    void admitted() {
        if (reservedEnds != null) {
            LiveStream<?>[] ends = ChannelImpl.attachAll(reservedEnds);
            channelEnds = ends;
            whenComplete((ignored, failure) -> closeAll(ends)); // also when it never runs
        }
    }

    /** Waits like {@link CompletableFuture#join()}, after spinning briefly: the answer is often sub-microsecond. */
    @Override
    public R join() {
        Waiting.spinUntilDone(this, callerSpin());
        return super.join();
    }

    /** Waits like {@link CompletableFuture#get()}, after spinning briefly: the answer is often sub-microsecond. */
    @Override
    public R get() throws InterruptedException, ExecutionException {
        Waiting.spinUntilDone(this, callerSpin());
        return super.get();
    }

    private SpinBudget callerSpin() {
        return worker instanceof ThreadWorker threadWorker ? threadWorker.callerSpin() : UNKNOWN_WORKER_SPIN;
    }

    /** The worker this execution was sent to. */
    Worker worker() {
        return worker;
    }

    /** Where a streaming call sends its items; null for a value call. */
    Pipe<Object> pipe() {
        return pipe;
    }

    /**
     * Runs the call on the current worker thread, unless it is already complete (cancelled), and
     * completes this future; {@code beforeCompletion} runs first, so that whoever sees the future
     * complete also sees the worker's bookkeeping done. Any throwable fails the execution, except a
     * {@link VirtualMachineError}, which ends the worker thread (it then gets replaced). A timeout
     * (the task's, or else its pool's) is counted from here.
     */
    @SuppressWarnings("unchecked") // the definition's invoker returns the moroutine's R
    void run(WorkerContext context, Runnable beforeCompletion) {
        AbortController stop = call.takesSignal() ? new AbortController() : null;
        stopSignal = stop;
        runState = RUNNING; // before the isDone() check: see the class comment
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
                result = context.invoke(call, pipe, channelEnds, stop != null ? stop.signal() : null);
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
        Duration own = call.timeout();
        if (own != null) {
            return own;
        }
        return worker instanceof ThreadWorker pooled && pooled.pool() != null ? pooled.pool().taskTimeout() : null;
    }

    private void timedOut(Duration timeout) {
        TimeoutException late = new TimeoutException(call + " did not finish within its timeout of " + timeout + " on "
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
            AbortController stop = stopSignal;
            try {
                if (stop != null) {
                    stop.abort(reason);
                }
            } finally { // an Error from a signal action must not leave the task running
                if (interrupt && RUN_STATE.compareAndSet(this, RUNNING, INTERRUPTING)) {
                    try {
                        worker.thread().interrupt();
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
        CancellationException cancelled = new CancellationException(call + " was cancelled");
        boolean now = mayInterruptIfRunning ? stop(cancelled, true) : completeExceptionally(cancelled);
        return now || isCancelled();
    }

    /** Cancels this execution for a reason of the library's; a running one has its {@link Signal} arguments fire. */
    void cancel(String why) {
        stop(new CancellationException(why + " (" + call + ")"), false);
    }
}
