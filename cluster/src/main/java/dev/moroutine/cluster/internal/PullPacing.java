package dev.moroutine.cluster.internal;

/**
 * When a stream's pump pulls its next batch: how many items its consumer should still have left
 * (taken from the pump's last batch) at that moment. Used by the one pump thread of a stream only.
 *
 * <p>A pull asks for the credit freed since the last one (see {@link StreamServer}), so pulling
 * earlier makes smaller batches, each one Hazelcast invocation and a wake of every thread on the way;
 * pulling later makes the consumer wait for the answer. With {@code c} the consumer's time per item
 * and {@code rtt} the time a pull takes to come back with its items, a pull made with {@code left}
 * items untaken keeps the consumer busy when {@code left * c >= rtt}, and the batch is
 * {@code highWaterMark - left}. So:
 * <ul>
 *   <li>a consumer that takes the whole window in less than a round trip ({@code highWaterMark * c < rtt})
 *       waits for every batch anyway, and a bigger batch makes it wait less per item: the pump pulls
 *       once it has taken everything ({@code left = 0}), one batch of a whole window per round trip;</li>
 *   <li>a slower one is kept busy: the pump pulls with what it takes in a round trip left,
 *       {@code rtt / c} items, at most half the window (the batches stay at least half a window).</li>
 * </ul>
 * Until the first measures (the first two pulls), half the window. Both times are smoothed over
 * the last few batches ({@link #SMOOTHING}), so one slow wake does not swing the next pull.
 */
final class PullPacing {

    /** The weight of a new measure in the running estimates. */
    static final double SMOOTHING = 0.25;

    private final int highWaterMark;
    /** The consumer's time per item, nanoseconds; 0 until measured. */
    private double nanosPerTake;
    /** A pull's round trip, nanoseconds; 0 until measured. */
    private double roundTripNanos;
    /** When the last batch was handed to the consumer, and the consumer's count then. */
    private long handedAt;
    private long takenWhenHanded = -1;
    private long pulledAt;

    PullPacing(int highWaterMark) {
        this.highWaterMark = highWaterMark;
    }

    /**
     * The consumed count at which the pump pulls next.
     *
     * @param received the items received in all
     * @return the count
     */
    long pullAt(long received) {
        return received - left();
    }

    /** The items the consumer still has when the pump pulls. */
    long left() {
        long half = highWaterMark / 2;
        if (nanosPerTake == 0 || roundTripNanos == 0) {
            return half;
        }
        if (highWaterMark * nanosPerTake < roundTripNanos) {
            return 0;
        }
        return Math.min(half, (long) Math.ceil(roundTripNanos / nanosPerTake));
    }

    /**
     * The pump sends a pull now.
     *
     * @param now {@link System#nanoTime()}
     * @param taken the consumer's count now
     */
    void pulling(long now, long taken) {
        // The consumer had items all along since the last batch came (it reached at most the count
        // that woke the pump, the last one it had), so its takes since then are its pace.
        if (takenWhenHanded >= 0 && taken > takenWhenHanded) {
            nanosPerTake = smoothed(nanosPerTake, (double) (now - handedAt) / (taken - takenWhenHanded));
        }
        pulledAt = now;
    }

    /**
     * The answer to the last pull was handed to the consumer.
     *
     * @param now {@link System#nanoTime()}
     * @param taken the consumer's count now
     * @param items how many items it held: none when the producer had none for a while (its time
     *     is the producer's, not a round trip's, and the consumer's next takes are not timed from it)
     */
    void handed(long now, long taken, int items) {
        if (items == 0) {
            takenWhenHanded = -1;
            return;
        }
        roundTripNanos = smoothed(roundTripNanos, now - pulledAt);
        handedAt = now;
        takenWhenHanded = taken;
    }

    private static double smoothed(double estimate, double measure) {
        return estimate == 0 ? measure : estimate + SMOOTHING * (measure - estimate);
    }
}
