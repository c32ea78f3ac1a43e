package dev.moroutine;

/**
 * A moroutine: a function that runs on a worker thread. Made by one of the
 * {@link Moroutine#mo(Mo1.Body) mo(…)} factories and stored in a {@code static final} field.
 *
 * <p>Its identity is the declaring class and the field's name ({@link #id()}), found on first use,
 * so that a worker that loads the class finds the same moroutine.
 *
 * <p>Sealed: implemented only by this library's moroutine types ({@code Mo0}…{@code Mo4} and the streaming
 * {@code StreamMo0}…{@code StreamMo4}). Moroutines are immutable and thread-safe.
 */
public sealed interface Mo permits Mo0, Mo1, Mo2, Mo3, Mo4, dev.moroutine.stream.StreamMo0,
        dev.moroutine.stream.StreamMo1, dev.moroutine.stream.StreamMo2, dev.moroutine.stream.StreamMo3,
        dev.moroutine.stream.StreamMo4 {

    /**
     * The moroutine's identity, {@code "binary.class.Name#fieldName"}.
     *
     * @return the identity
     * @throws IllegalStateException if the moroutine is not stored in a {@code static final} field
     *     of the class that made it; the message names that class and the line of the {@code mo(…)} call
     */
    String id();

    /**
     * The number of parameters the moroutine's function takes (0 to 4).
     *
     * @return the arity
     */
    int arity();
}
