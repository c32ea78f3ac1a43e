package dev.moroutine;

import java.io.Serial;

/**
 * Thrown by the blocking calls ({@link Task#join()}, {@link Pool#run}, {@link Pool#runAll})
 * when a task failed: its moroutine threw, or it ran over its {@linkplain Task#withTimeout timeout}.
 * The cause is the moroutine's own exception, with the worker's stack trace, whatever its type (a
 * {@link java.util.concurrent.CancellationException} from {@link Signal#throwIfAborted()} too), or
 * a {@link java.util.concurrent.TimeoutException} that names the task and its timeout. This
 * exception's stack trace is the caller's, so both sides of the call are visible. A task stopped
 * from outside (cancelled, or by shutdown) makes them throw a
 * {@link java.util.concurrent.CancellationException} instead: see <a href="Task.html#errors">Task</a>.
 */
public final class TaskFailedException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Makes the exception.
     *
     * @param message what failed, naming the moroutine
     * @param cause the moroutine's exception
     */
    public TaskFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
