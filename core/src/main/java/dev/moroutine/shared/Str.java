package dev.moroutine.shared;

/**
 * A shared string of at most {@link #maxBytes()} UTF-8 bytes: {@code shared(string(64))}, or a
 * {@code String} record component declared with {@link MaxBytes}. It stores its byte length and
 * the bytes (see the layout in the package documentation).
 *
 * <p>A string whose UTF-8 form is longer than the maximum is refused, never cut: so a multi-byte
 * character is never split. Thread-safe, but {@link #load()} and {@link #store} are not atomic as
 * a whole; guard them with a lock when a reader may race a writer.
 */
public sealed interface Str extends SharedValue permits dev.moroutine.internal.shared.StrCell {

    /**
     * The most UTF-8 bytes this string holds.
     *
     * @return the maximum
     */
    int maxBytes();

    /**
     * Reads the string.
     *
     * @return the string; {@code ""} for fresh memory
     * @throws IllegalStateException if the stored length is outside 0..maxBytes (the memory was
     *     written by something else)
     */
    String load();

    /**
     * Writes the string.
     *
     * @param value the string
     * @throws IllegalArgumentException if its UTF-8 form is longer than {@link #maxBytes()} (the
     *     message gives both sizes), or it holds an unpaired surrogate; the memory is unchanged
     * @throws NullPointerException if {@code value} is null
     */
    void store(String value);
}
