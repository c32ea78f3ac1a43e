package dev.moroutine;

import java.io.Serial;

/**
 * Fails the task that was running when a {@link VirtualMachineError} (a {@link StackOverflowError},
 * an {@link OutOfMemoryError}) escaped a moroutine and ended its worker thread; the cause is that
 * error. Unless the pool was stopping, the worker has already been replaced by a fresh thread, which
 * runs the tasks that were queued behind the failed one; values the old thread had cached for
 * task-args were closed with it. Other throwables, {@code Error}s included, fail only their task.
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
