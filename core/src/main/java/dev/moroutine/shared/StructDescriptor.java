package dev.moroutine.shared;

/**
 * The descriptor of a struct laid out from a record class, made by {@link Shared#struct(Class)}.
 * Each record component becomes a field, in order, by the rules of {@link Shared#struct(Class)};
 * {@link #with} gives a component another descriptor (an atomic, an unsigned type, a tuple).
 *
 * <p>Immutable and thread-safe.
 *
 * @param <R> the record type
 */
public sealed interface StructDescriptor<R extends Record> extends Descriptor<Struct<R>>
        permits dev.moroutine.internal.shared.StructDesc {

    /**
     * The record class.
     *
     * @return the class
     */
    Class<R> type();

    /**
     * This struct with one component laid out by {@code descriptor} instead of by its Java type.
     * The descriptor must load the component's type: an {@code int} component takes {@code int32},
     * {@code int32Atomic}, {@code uint8} or {@code uint16}; a {@code long} takes {@code int64},
     * {@code int64Atomic} or {@code uint32}; a {@code boolean} takes {@code bool} or
     * {@code boolAtomic}; a {@code List} takes a {@code tuple(…)}; a {@code String} a
     * {@code string(n)}; a {@code byte[]} a {@code bytes(n)}; a record its {@code struct(…)}.
     *
     * <pre>{@code
     * record Flags(int inflight, int state) {}
     * Struct<Flags> flags = shared(struct(Flags.class).with("inflight", int32Atomic));
     * }</pre>
     *
     * @param component the record component's name
     * @param descriptor its layout
     * @return a new descriptor
     * @throws IllegalArgumentException if the record has no such component, or the descriptor
     *     does not load the component's type (the message says which types fit)
     * @throws NullPointerException if an argument is null
     */
    StructDescriptor<R> with(String component, Descriptor<?> descriptor);
}
