package dev.moroutine.internal.stream;

/** What a {@link LiveStreamImpl} pulls from: a pipe, or the completions of {@code map}. */
interface ItemSource {

    /** Returned by {@link #next()} at the end. */
    Object END = new Object();

    /**
     * Takes the next item, blocking until there is one.
     *
     * @return the item, or {@link #END}
     */
    Object next();

    /** The consumer stops early: stop producing. Idempotent. */
    void cancel();
}
