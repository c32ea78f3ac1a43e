package dev.moroutine.internal.stream;

/** Settings shared by the streaming parts. */
public final class Streams {

    /** Items in flight before a producer blocks, unless a task or a pool says otherwise. */
    public static final int DEFAULT_HIGH_WATER_MARK = 16;
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
