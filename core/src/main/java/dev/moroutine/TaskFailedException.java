package dev.moroutine;

import java.io.Serial;

/**
 * Thrown by the blocking calls ({@link Task#join()}, {@link Runner#run}, {@link Runner#runAll})
 * when a moroutine threw. The cause is the moroutine's own exception, with the worker's stack
 * trace; this exception's stack trace is the caller's, so both sides of the call are visible.
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
