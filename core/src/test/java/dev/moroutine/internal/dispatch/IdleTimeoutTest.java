package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;

class IdleTimeoutTest {

    @Test
    void thePropertyIsAnIsoDurationAndAbsentMeansTheDefault() {
        assertEquals(Duration.ofSeconds(60), IdleTimeout.parse(null));
        assertEquals(Duration.ofMinutes(5), IdleTimeout.parse("PT5M"));
        assertEquals(Duration.ofMillis(500), IdleTimeout.parse(" PT0.5S "));
        assertEquals(Duration.ZERO, IdleTimeout.parse("PT0S"));
    }

    @Test
    void aBadPropertySaysWhatIsWrongAndWhatToWrite() {
        IllegalStateException notADuration = assertThrows(IllegalStateException.class, () -> IdleTimeout.parse("60s"));
        assertEquals("the system property moroutine.dedicated.idleTimeout is \"60s\", which is not an ISO-8601 duration;"
                + " give a duration such as PT60S, PT0.5S or PT10M, or remove it for the default of PT1M", notADuration.getMessage());
        assertInstanceOf(DateTimeParseException.class, notADuration.getCause());
        IllegalStateException negative = assertThrows(IllegalStateException.class, () -> IdleTimeout.parse("-PT1S"));
        assertTrue(negative.getMessage().contains("is \"-PT1S\", which is negative; give a duration such as PT60S"), negative.getMessage());
    }
}
