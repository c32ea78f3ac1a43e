package dev.moroutine.serve;

import dev.moroutine.internal.dispatch.DeferredWakes;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The way from one I/O thread to the workers: the requests that its connections read whole during
 * one pass of the event loop are submitted together, by one task that the loop runs after the
 * pass's I/O, rather than each as it is decoded; and a worker that went idle is woken once, after
 * the last of them is queued ({@link DeferredWakes}), not at the first. Under {@code wrk} a pass
 * reads tens of requests. Waking the worker at the first would cost a {@code futex} call per
 * request, and where the worker shares a CPU with the I/O thread (a busy machine, a server pinned
 * to one CPU) the woken worker takes that CPU, runs the one request queued and parks again, two
 * context switches per request or two; woken after the last, it runs the pass's requests in one go.
 *
 * <p>A request waits for the end of its pass only, a few microseconds. The queue is one FIFO for
 * all the loop's connections, so the requests of each connection are submitted in the order they
 * were read, as {@link Connection} requires.
 *
 * <p>Confined to the I/O thread.
 */
final class Inbox implements Runnable {

    private final EventExecutor loop;
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    private final DeferredWakes wakes = new DeferredWakes();

    Inbox(EventExecutor loop) {
        this.loop = loop;
    }

    /** On the I/O thread: queues a request's submission until the end of the current pass. */
    void add(Runnable submit) {
        pending.add(submit);
        if (pending.size() == 1) {
            try {
                loop.execute(this); // on the loop itself: queued behind the pass, no wake-up
            } catch (RejectedExecutionException shutDown) { // the loop is ending: submit now rather than never
                run();
            }
        }
    }

    /** On the I/O thread: submits every request queued so far, in order. */
    @Override
    public void run() {
        try {
            for (Runnable submit; (submit = pending.poll()) != null; ) {
                submit.run();
            }
        } finally {
            wakes.wakeAll();
        }
    }

    /**
     * On the I/O thread, in a {@link #run}: makes a submission whose worker is woken at the end of the
     * run. Only the submission itself goes here, never the handler, which might wait for a task.
     */
    <T> T submit(Supplier<T> submission) {
        return wakes.defer(submission);
    }
}
