package dev.moroutine.bench;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CoreToCoreTest {

    @Test
    void measuresAPassOrGivesUpAtItsLimit() {
        double nanos = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> CoreToCore.oneWayNanos(CoreToCore.RUNS, CoreToCore.ROUND_TRIPS, Duration.ofSeconds(10)));
        // On a machine too busy to run both threads the limit passes first: NaN. Otherwise a pass costs something,
        // and far less than a millisecond (a run that counted a park or a time slice per pass would not).
        assertTrue(Double.isNaN(nanos) || nanos > 0 && nanos < 1_000_000, "one-way pass: " + nanos + " ns");
    }

    @Test
    void aLimitThatHasPassedEndsTheMeasurementWithoutAFigure() {
        double nanos = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> CoreToCore.oneWayNanos(CoreToCore.RUNS, CoreToCore.ROUND_TRIPS, Duration.ZERO));
        assertTrue(Double.isNaN(nanos), "with no time at all nothing can be measured, but got " + nanos + " ns");
    }
}
