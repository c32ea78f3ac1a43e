package dev.moroutine.internal.stream;

import java.util.concurrent.Flow;

/** Settings shared by the streaming parts. */
public final class Streams {

    /**
     * Items in flight before a stream's producer blocks, unless a task or a pool says otherwise: the
     * JDK's {@link Flow#defaultBufferSize()} (256), as {@code SubmissionPublisher}'s. Producer and
     * consumer change hands once per run of items, and a small bound caps the run: on a machine
     * whose cores are shared, each hand-off costs a context switch or two, and with 16 a stream ran
     * at a tenth of its speed with 256 (issue 14's busy-machine bench).
     */
    public static final int DEFAULT_HIGH_WATER_MARK = Flow.defaultBufferSize();
    /**
     * The most items a consumer of a channel takes from its source at once, unless it says
     * otherwise: 256, as for a stream. A consumer takes the channel's lock once per run, so a long
     * run costs little per item; a smaller one ({@code channel(source, n)}) deals the items more
     * evenly among several consumers, and a consumer that closes early drops fewer.
     */
    public static final int DEFAULT_CHANNEL_HIGH_WATER_MARK = Flow.defaultBufferSize();
    /** Every stream allocates a buffer of this many slots; beyond this a bound stops being one. */
    public static final int MAX_HIGH_WATER_MARK = 1 << 20;

    private static final StackWalker WALKER = StackWalker.getInstance();

    private Streams() {}

    /**
     * Where the caller's code opens a stream: the first frame outside this package and the JDK, as
     * in a stack trace; or, for a stream a worker opens for a task's argument, that thread.
     *
     * @return the site
     */
    static String openingSite() {
        return WALKER.walk(frames -> frames
                .filter(frame -> !frame.getClassName().startsWith("dev.moroutine.internal.") && !isJdk(frame.getClassName()))
                .findFirst()
                .map(frame -> frame.getClassName() + "." + frame.getMethodName() + "(" + frame.getFileName() + ":"
                        + frame.getLineNumber() + ")"))
                .orElseGet(() -> "thread " + Thread.currentThread().getName());
    }

    private static boolean isJdk(String className) {
        return className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.");
    }

    /**
     * Checks a high-water mark.
     *
     * @param highWaterMark the value
     * @return it
     * @throws IllegalArgumentException if it is less than 1 or more than {@link #MAX_HIGH_WATER_MARK}
     */
    public static int checkHighWaterMark(int highWaterMark) {
        if (highWaterMark < 1) {
            throw new IllegalArgumentException("highWaterMark must be at least 1 (items in flight before the producer"
                    + " blocks), was " + highWaterMark);
        }
        if (highWaterMark > MAX_HIGH_WATER_MARK) {
            throw new IllegalArgumentException("highWaterMark must be at most " + MAX_HIGH_WATER_MARK
                    + " (each stream allocates a buffer of that many slots), was " + highWaterMark);
        }
        return highWaterMark;
    }
}
