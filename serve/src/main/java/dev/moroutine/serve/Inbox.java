package dev.moroutine.serve;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;

/**
 * The way from one I/O thread to the workers: the requests that its connections read whole during
 * one pass of the event loop are submitted together, by one task that the loop runs after the
 * pass's I/O, rather than each as it is decoded. A worker that went idle is then woken (a
 * {@code futex} system call on each side, and on a busy machine a context switch) once per pass
 * and not once per request: under {@code wrk}, about ten requests a pass.
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
        for (Runnable submit; (submit = pending.poll()) != null; ) {
            submit.run();
        }
    }
}
