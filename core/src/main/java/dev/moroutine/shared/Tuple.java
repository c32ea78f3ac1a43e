package dev.moroutine.shared;

import java.util.List;

/**
 * A fixed-length sequence of shared values of given types: {@code shared(tuple(int32, bool))}.
 * {@link #load()} gives a {@code List<Object>} of the elements' values, {@link #store} takes one,
 * and {@link #elements()} gives each element as a shared value of its own.
 *
 * <pre>{@code
 * Tuple pair = shared(tuple(int32, bool));
 * pair.store(List.of(42, true));
 * List<Object> now = pair.load();                  // [42, true]
 * pair.element(0, Int32.class).store(99);
 * }</pre>
 *
 * <p>Element values, as {@code load} gives them and {@code store} takes them: {@code Boolean} for
 * {@code bool} and {@code boolAtomic}; {@code Byte}, {@code Short}, {@code Integer}, {@code Long}
 * for {@code int8}, {@code int16}, {@code int32}/{@code int32Atomic}, {@code int64}/{@code int64Atomic};
 * {@code Integer} for {@code uint8} and {@code uint16}, {@code Long} for {@code uint32};
 * {@code Float} and {@code Double}; {@code String} for {@code string(n)}; {@code byte[]} for
 * {@code bytes(n)}; the record for a {@code struct}; a {@code List<Object>} for a nested tuple; the
 * live lock for a {@code mutex} or {@code rwLock} (never copied, as in {@link Struct}). {@code store}
 * also takes any integer box whose value is in the element's range, so {@code List.of(1, 2)} fits
 * {@code tuple(int8, int64)}.
 *
 * <p>Thread-safety as for {@link Struct}: element by element, not atomic as a whole; a refused
 * {@code store} changes nothing.
 */
public sealed interface Tuple extends SharedValue permits dev.moroutine.internal.shared.TupleCell {

    /**
     * The number of elements.
     *
     * @return the length
     */
    int size();

    /**
     * Reads every element.
     *
     * @return an unmodifiable list of their values
     */
    List<Object> load();

    /**
     * Writes every element.
     *
     * @param values one value per element, in order
     * @throws IllegalArgumentException if the list has another length, or a value does not fit its
     *     element (with the element's index); the memory is unchanged
     * @throws NullPointerException if {@code values} or one of them is null
     */
    void store(List<?> values);

    /**
     * The elements as shared values.
     *
     * @return an unmodifiable list
     */
    List<SharedValue> elements();

    /**
     * One element, typed: {@code element(0, Int32.class)}.
     *
     * @param index its position
     * @param type its type
     * @param <V> its type
     * @return the element
     * @throws IndexOutOfBoundsException if there is no such element
     * @throws IllegalArgumentException if the element is of another type (the message says which)
     */
    <V extends SharedValue> V element(int index, Class<V> type);
}
