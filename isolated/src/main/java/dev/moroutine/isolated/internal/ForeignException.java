package dev.moroutine.isolated.internal;

import java.io.Serial;

/**
 * Stands for an exception thrown in a worker JVM whose class cannot be made again here (it has no
 * public constructor taking a message, say). It prints as the original would: its class's name,
 * then the message.
 */
final class ForeignException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String type;

    ForeignException(String type, String message, Throwable cause) {
        super(message, cause);
        this.type = type;
    }

    @Override
    public String toString() {
        String message = getLocalizedMessage();
        return message != null ? type + ": " + message : type;
    }
}
