package dev.moroutine.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** When a stream's pump pulls, from measured paces (times in nanoseconds, given). */
class PullPacingTest {

    /** One pull of {@code items} answered after {@code roundTrip}, then the consumer's takes of {@code taken} over {@code taking}. */
    private static long cycle(PullPacing pacing, long[] clock, long[] taken, long roundTrip, int items, long taking, long takes) {
        pacing.pulling(clock[0], taken[0]);
        clock[0] += roundTrip;
        pacing.handed(clock[0], taken[0], items);
        clock[0] += taking;
        taken[0] += takes;
        return pacing.left();
    }

    @Test
    void halfTheWindowUntilMeasured() {
        PullPacing pacing = new PullPacing(1024);
        assertEquals(512, pacing.left());
        assertEquals(1000 - 512, pacing.pullAt(1000));
        pacing.pulling(0, 0);
        pacing.handed(100_000, 0, 1024);
        assertEquals(512, pacing.left(), "a round trip, but no pace of the consumer yet");
    }

    @Test
    void aConsumerFasterThanARoundTripIsPulledForOnceItHasTakenEverything() {
        PullPacing pacing = new PullPacing(1024);
        long[] clock = {0};
        long[] taken = {0};
        cycle(pacing, clock, taken, 300_000, 1024, 10_000, 1024); // 1024 takes in 10 µs, a round trip of 300 µs
        assertEquals(0, cycle(pacing, clock, taken, 300_000, 1024, 10_000, 1024));
        assertEquals(5_000, pacing.pullAt(5_000));
    }

    @Test
    void aSlowerConsumerIsPulledForWhileItHasARoundTripsWorthLeft() {
        PullPacing pacing = new PullPacing(1024);
        long[] clock = {0};
        long[] taken = {0};
        cycle(pacing, clock, taken, 100_000, 512, 512_000, 512); // 1 µs a take, a round trip of 100 µs: 100 left
        assertEquals(100, cycle(pacing, clock, taken, 100_000, 512, 512_000, 512));
    }

    @Test
    void aConsumerThatTakesLessThanHalfTheWindowInARoundTripLeavesHalfTheWindow() {
        PullPacing pacing = new PullPacing(1024);
        long[] clock = {0};
        long[] taken = {0};
        cycle(pacing, clock, taken, 10_000_000, 512, 5_120_000, 512); // round trips of 10 ms, takes of 10 µs: 1000 > 512
        assertEquals(512, cycle(pacing, clock, taken, 10_000_000, 512, 5_120_000, 512));
    }

    @Test
    void anEmptyAnswerIsNeitherARoundTripNorTheStartOfTheConsumersPace() {
        PullPacing pacing = new PullPacing(1024);
        long[] clock = {0};
        long[] taken = {0};
        cycle(pacing, clock, taken, 300_000, 1024, 10_000, 1024);
        cycle(pacing, clock, taken, 300_000, 1024, 10_000, 1024);
        pacing.pulling(clock[0], taken[0]);
        clock[0] += 200_000_000; // the producer had nothing for 200 ms
        pacing.handed(clock[0], taken[0], 0);
        assertEquals(0, pacing.left());
        pacing.pulling(clock[0] + 1_000_000_000L, taken[0] + 1); // not timed from the empty answer
        assertEquals(0, pacing.left(), "the consumer's pace still says fast");
    }

    @Test
    void aWindowOfOnePullsWhenItsOneItemIsTaken() {
        PullPacing pacing = new PullPacing(1);
        assertEquals(0, pacing.left());
        long[] clock = {0};
        long[] taken = {0};
        assertEquals(0, cycle(pacing, clock, taken, 100_000, 1, 10_000_000, 1));
        assertEquals(0, cycle(pacing, clock, taken, 100_000, 1, 10_000_000, 1));
    }
}
