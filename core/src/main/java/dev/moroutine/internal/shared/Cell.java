package dev.moroutine.internal.shared;

/**
 * What every cell (the implementation of a shared value) can do with its value as an object, so
 * that structs and tuples can load and store members of any type. {@link #checkValue} runs over a
 * whole struct or tuple before {@link #storeValue} writes anything, so a refused store changes nothing.
 */
interface Cell {

    /** The value, boxed: the element type documented on {@code Tuple}. */
    Object loadValue();

    /**
     * Throws if {@code value} cannot be stored here.
     *
     * @throws IllegalArgumentException with what was expected and what was given
     * @throws NullPointerException if {@code value} is null
     */
    void checkValue(Object value);

    /** Stores a value that passed {@link #checkValue}. */
    void storeValue(Object value);
}
