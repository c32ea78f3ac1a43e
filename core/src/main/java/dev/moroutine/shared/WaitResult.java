package dev.moroutine.shared;

/** How a wait on an {@link Int32Atomic} ended. */
public enum WaitResult {
    /** Woken by {@link Int32Atomic#wake()} or {@link Int32Atomic#wake(int)}. */
    OK,
    /** The value already differed from the expected one; returned at once, without waiting. */
    NOT_EQUAL,
    /** The timeout elapsed first. */
    TIMED_OUT
}
