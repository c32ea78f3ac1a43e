package dev.moroutine.internal.shared;

import java.time.Duration;
import java.util.Objects;

/** Checks of values and arguments, with messages that carry the bad value. */
final class Values {

    private Values() {}

    /** An integer box (Byte, Short, Integer, Long) whose value is in min..max, for a descriptor named {@code what}. */
    static long integer(Object value, long min, long max, Object what) {
        Objects.requireNonNull(value, () -> what + " cannot hold null");
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            long v = ((Number) value).longValue();
            if (v < min || v > max) {
                throw new IllegalArgumentException(what + " holds " + min + ".." + max + ", was " + v);
            }
            return v;
        }
        throw new IllegalArgumentException(what + " holds an integer in " + min + ".." + max + ", was " + describe(value));
    }

    static void range(long value, long min, long max, Object what) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " holds " + min + ".." + max + ", was " + value);
        }
    }

    static <T> T instance(Object value, Class<T> type, Object what) {
        Objects.requireNonNull(value, () -> what + " cannot hold null");
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException(what + " holds a " + type.getSimpleName() + ", was " + describe(value));
        }
        return type.cast(value);
    }

    static String describe(Object value) {
        return value == null ? "null" : value.getClass().getSimpleName() + " " + value;
    }

    /** @return the timeout in nanoseconds (saturated), at least 0 */
    static long timeoutNanos(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout
                    + "; use Duration.ZERO to try without waiting");
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
