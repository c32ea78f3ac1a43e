package dev.moroutine;

import java.io.Serial;

/**
 * Fails the task that was running when an {@link Error} (a {@link StackOverflowError}, say) escaped
 * a moroutine and ended its worker thread. The cause is that error. The worker has already been
 * replaced by a fresh thread, which runs the tasks that were queued behind the failed one; values
 * the old thread had cached for task-args were closed with it.
 */
public final class WorkerDiedException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Makes the exception.
     *
     * @param message which worker died, running what
     * @param cause the error that ended the worker thread
     */
    public WorkerDiedException(String message, Throwable cause) {
        super(message, cause);
    }
}
