package dev.moroutine.internal;

import dev.moroutine.stream.LiveStream;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One run of a {@link Call}: the queue element and, at once, the future its caller holds, so a
 * dispatch allocates one object besides the task. It completes exactly once: with the result,
 * the moroutine's exception, or a {@link CancellationException} when it was cancelled or its
 * worker stopped first; whichever comes first wins.
 *
 * @param <R> the result type
 */
public final class Execution<R> extends CompletableFuture<R> {

    private static final SpinBudget UNKNOWN_WORKER_SPIN = new SpinBudget(20_000);

    private final Call<R> call;
    private final Pipe<Object> pipe;
    /** Written once by the dispatching thread before the queue hand-off. */
    private Worker worker;

    /** Consumer ends of the channels among the arguments, attached at dispatch; null if none. */
    private final LiveStream<?>[] channelEnds;

    /**
     * An execution of {@code call}; for a streaming call, {@code pipe} takes its items. A channel
     * argument gets its consumer attached now, at dispatch, as in the seed: a consumer whose task
     * starts late still gets its share instead of finding the channel ended.
     */
    Execution(Call<R> call, Pipe<Object> pipe) {
        this.call = call;
        this.pipe = pipe;
        this.channelEnds = attachChannels(call.args());
        if (channelEnds != null) {
            whenComplete((ignored, failure) -> closeAll(channelEnds)); // also when it never runs
        }
    }

    private static LiveStream<?>[] attachChannels(Object[] args) {
        LiveStream<?>[] ends = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof TaskArg taskArg && taskArg.task() instanceof ChannelImpl<?> channel) {
                if (ends == null) {
                    ends = new LiveStream<?>[args.length];
                }
                ends[i] = channel.attach();
            }
        }
        return ends;
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
        worker = target;
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
     * {@link VirtualMachineError}, which ends the worker thread (it then gets replaced).
     */
    @SuppressWarnings("unchecked") // the definition's invoker returns the moroutine's R
    void run(WorkerContext context, Runnable beforeCompletion) {
        if (isDone()) {
            beforeCompletion.run();
            return;
        }
        R result;
        try {
            result = (R) context.invoke(call, pipe, channelEnds);
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable failure) {
            beforeCompletion.run();
            completeExceptionally(failure);
            return;
        }
        beforeCompletion.run();
        complete(result);
    }

    void cancel(String why) {
        completeExceptionally(new CancellationException(why + " (" + call + ")"));
    }
}
