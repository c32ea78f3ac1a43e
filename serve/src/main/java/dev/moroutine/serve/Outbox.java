package dev.moroutine.serve;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The way back from the workers to one I/O thread: answers that workers finish are queued here
 * and the I/O thread takes them all in one task, so that a burst of answers costs one task and at
 * most one wake-up of the I/O thread (waking it from its selector is a system call), not one each.
 *
 * <p>{@link #post} is called by any thread; {@link #run} only on the I/O thread.
 */
final class Outbox implements Runnable {

    private final EventExecutor loop;
    private final Queue<Runnable> answers = PlatformDependent.newMpscQueue();
    /** A {@link #run} is queued on the I/O thread and has not begun taking answers yet. */
    private final AtomicBoolean scheduled = new AtomicBoolean();

    Outbox(EventExecutor loop) {
        this.loop = loop;
    }

    /** Queues an answer for the I/O thread; the I/O thread is woken only if no take is already due. */
    void post(Runnable answer) {
        answers.offer(answer);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(this);
            } catch (RejectedExecutionException shutDown) { // the I/O thread has ended: its connections are closed
                answers.clear();
            }
        }
    }

    /** On the I/O thread: runs every answer queued so far, and those queued while it runs. */
    @Override
    public void run() {
        scheduled.set(false); // from here on a post schedules another run, which may find nothing left: harmless
        for (Runnable answer; (answer = answers.poll()) != null; ) {
            answer.run();
        }
    }
}
