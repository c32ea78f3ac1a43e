package dev.moroutine.internal.dispatch;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How long the thread of a dedicated worker may stay idle before it stops: one setting for the
 * process, as dedicated workers belong to {@code static final} moroutines and so to the process.
 * It starts as the system property {@value #PROPERTY}, read on first use, or
 * {@link #DEFAULT}; {@link #set} replaces it, and each idle thread reads it when it next waits.
 */
public final class IdleTimeout {

    /** The system property that sets the initial timeout, as an ISO-8601 duration ({@code PT60S}). */
    public static final String PROPERTY = "moroutine.dedicated.idleTimeout";
    /** The timeout when the property is not set: as long as {@code Executors.newCachedThreadPool()} keeps an idle thread. */
    public static final Duration DEFAULT = Duration.ofSeconds(60);

    /** Null until the property is read or {@link #set} is called; never null after. */
    private static final AtomicReference<Duration> CURRENT = new AtomicReference<>();

    private IdleTimeout() {}

    /**
     * The timeout.
     *
     * @return the timeout
     * @throws IllegalStateException if it was never set and the system property is not a valid duration
     */
    public static Duration get() {
        Duration known = CURRENT.get();
        if (known != null) {
            return known;
        }
        CURRENT.compareAndSet(null, parse(System.getProperty(PROPERTY))); // a set() in the meantime wins
        return CURRENT.get();
    }

    /**
     * Replaces the timeout.
     *
     * @param timeout the new timeout; zero stops a thread as soon as it finds nothing to do
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    public static void set(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("the dedicated idle timeout must not be negative, was " + timeout
                    + "; use Duration.ZERO to stop idle threads at once, or a long duration to keep them");
        }
        CURRENT.set(timeout);
    }

    /**
     * The timeout in nanoseconds, saturated (centuries mean "never"). Through {@link #get}: a worker
     * made without {@code Definition} (a test's) may idle before anything read the property.
     */
    static long nanos() {
        return TimeUnit.NANOSECONDS.convert(get());
    }

    /** The timeout a value of the system property gives: null gives the default. */
    static Duration parse(String text) {
        if (text == null) {
            return DEFAULT;
        }
        Duration parsed;
        try {
            parsed = Duration.parse(text.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalStateException(invalid(text, "not an ISO-8601 duration"), e);
        }
        if (parsed.isNegative()) {
            throw new IllegalStateException(invalid(text, "negative"));
        }
        return parsed;
    }

    private static String invalid(String text, String problem) {
        return "the system property " + PROPERTY + " is \"" + text + "\", which is " + problem
                + "; give a duration such as PT60S, PT0.5S or PT10M, or remove it for the default of " + DEFAULT;
    }
}
