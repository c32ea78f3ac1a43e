package dev.moroutine.serve;

import io.netty.util.AsciiString;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The {@code Date} field of responses (RFC 9110 §6.6.1, the IMF-fixdate of RFC 7231 §7.1.1.1:
 * {@code Sun, 06 Nov 1994 08:49:37 GMT}), formatted at most once per second: every response
 * within a second shares one value. Thread-safe: the cache is one immutable pair behind a
 * volatile reference.
 */
final class HttpDate {

    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** A second since the epoch and its formatted value. */
    private record Cached(long second, AsciiString value) {}

    private static volatile Cached cached = new Cached(Long.MIN_VALUE, AsciiString.EMPTY_STRING);

    private HttpDate() {}

    /**
     * The field value for now.
     *
     * @return the date, as an {@link AsciiString} that Netty's encoder copies without re-encoding
     */
    static AsciiString now() {
        return at(System.currentTimeMillis());
    }

    /** The field value for a time, from the cache when it falls in the cached second. */
    static AsciiString at(long epochMillis) {
        long second = Math.floorDiv(epochMillis, 1000);
        Cached last = cached;
        if (last.second() == second) {
            return last.value();
        }
        AsciiString value = new AsciiString(IMF_FIXDATE.format(Instant.ofEpochSecond(second)));
        cached = new Cached(second, value);
        return value;
    }
}
