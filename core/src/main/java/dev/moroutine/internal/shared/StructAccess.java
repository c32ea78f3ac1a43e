package dev.moroutine.internal.shared;

/**
 * Loads and stores the records of one struct descriptor. Each {@link StructDesc} has its own
 * implementation, a class that {@link StructAccessors} generates, so that its field offsets and the
 * record's constructor and accessors are constants the JIT inlines. Every method takes the cell it
 * works on, whose member cells serve the fields that are not plain scalars (strings, bytes, tuples,
 * locks, nested structs).
 */
interface StructAccess {

    /** Reads every field of {@code cell} into a new record. */
    Object load(StructCell<?> cell);

    /**
     * Checks every component of {@code record} against its field and writes nothing: what refuses
     * a store, with the component's name in the message.
     *
     * @throws IllegalArgumentException if a component does not fit its field
     * @throws NullPointerException if a component that is not a lock is null
     */
    void check(StructCell<?> cell, Object record);

    /** {@link #check}, then {@link #write}, reading each component once. */
    void store(StructCell<?> cell, Object record);

    /** Writes every field from a record that passed {@link #check}. */
    void write(StructCell<?> cell, Object record);
}
