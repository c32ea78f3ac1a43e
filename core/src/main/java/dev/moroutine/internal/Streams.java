package dev.moroutine.internal;

/** Settings shared by the streaming parts. */
public final class Streams {

    /** Items in flight before a producer blocks, unless a task or a pool says otherwise. */
    public static final int DEFAULT_HIGH_WATER_MARK = 16;

    private Streams() {}

    /**
     * Checks a high-water mark.
     *
     * @param highWaterMark the value
     * @return it
     * @throws IllegalArgumentException if it is less than 1
     */
    public static int checkHighWaterMark(int highWaterMark) {
        if (highWaterMark < 1) {
            throw new IllegalArgumentException("highWaterMark must be at least 1 (items in flight before the producer"
                    + " blocks), was " + highWaterMark);
        }
        return highWaterMark;
    }
}
