package dev.moroutine.examples.multimodule;

/**
 * A moroutine's result together with the name of the thread that computed it.
 *
 * @param value the result
 * @param thread the name of the thread that ran the moroutine
 * @param <T> the result type
 */
public record Result<T>(T value, String thread) {

    /**
     * Wraps a value computed on the current thread.
     *
     * @param value the result
     * @param <T> the result type
     * @return the value and the current thread's name
     */
    public static <T> Result<T> here(T value) {
        return new Result<>(value, Thread.currentThread().getName());
    }
}
