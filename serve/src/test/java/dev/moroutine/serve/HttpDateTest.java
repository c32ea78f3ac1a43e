package dev.moroutine.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The Date field: RFC 7231's IMF-fixdate, formatted once per second. */
class HttpDateTest {

    @Test
    void formatsTheImfFixdate() {
        assertEquals("Sun, 06 Nov 1994 08:49:37 GMT", HttpDate.at(Instant.parse("1994-11-06T08:49:37.250Z").toEpochMilli()).toString());
        assertEquals("Tue, 01 Dec 2026 03:04:05 GMT", HttpDate.at(Instant.parse("2026-12-01T03:04:05Z").toEpochMilli()).toString());
    }

    @Test
    void formatsOncePerSecond() {
        long second = Instant.parse("2026-12-01T03:04:05Z").toEpochMilli();
        var first = HttpDate.at(second);
        assertSame(first, HttpDate.at(second + 999), "within one second, the cached value");
        var next = HttpDate.at(second + 1000);
        assertNotEquals(first, next);
        assertEquals("Tue, 01 Dec 2026 03:04:06 GMT", next.toString());
    }
}
