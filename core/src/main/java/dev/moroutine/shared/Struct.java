package dev.moroutine.shared;

import java.util.SequencedMap;

/**
 * A record laid out in shared memory: {@code shared(struct(Point.class))} for
 * {@code record Point(int x, int y)}. {@link #load()} reads every field into a new record,
 * {@link #store} writes every field from one, and each field is a shared value of its own
 * ({@link #field(String, Class)}).
 *
 * <pre>{@code
 * Struct<Point> p = shared(new Point(10, 20));
 * p.field("x", Int32.class).store(11);
 * Point now = p.load();             // Point[x=11, y=20]
 * }</pre>
 *
 * <p>Thread-safe, but {@code load} and {@code store} are not atomic as a whole: they read and
 * write field by field, each field untorn (see each field's type). A reader racing a writer can
 * see some fields old and some new; guard the struct with a {@link Mutex} or {@link RwLock} (it may
 * be a field of the struct itself). Lock fields (a {@code Mutex} or {@code RwLock} component) are
 * never copied: {@code load} puts the live lock into the record and {@code store} leaves the lock
 * as it is (so such a component may be {@code null} in a record to store). A {@code store} checks the
 * whole record first, so a record it refuses changes nothing.
 *
 * @param <R> the record type
 */
public sealed interface Struct<R extends Record> extends SharedValue permits dev.moroutine.internal.shared.StructCell {

    /**
     * The record class.
     *
     * @return the class
     */
    Class<R> type();

    /**
     * Reads all fields into a new record.
     *
     * @return the record
     */
    R load();

    /**
     * Writes all fields from {@code value}.
     *
     * @param value the record
     * @throws IllegalArgumentException if a component does not fit its field (a string over its
     *     maximum, an array of the wrong length, a value out of an unsigned range), with the
     *     component's name; the memory is unchanged
     * @throws NullPointerException if {@code value} or one of its object components is null
     */
    void store(R value);

    /**
     * The fields, by component name, in declaration order.
     *
     * @return an unmodifiable map
     */
    SequencedMap<String, SharedValue> fields();

    /**
     * One field, typed: {@code field("x", Int32.class)}.
     *
     * @param name the component's name
     * @param type the field's type
     * @param <V> the field's type
     * @return the field
     * @throws IllegalArgumentException if there is no such component, or the field is of another
     *     type (the message says which)
     */
    <V extends SharedValue> V field(String name, Class<V> type);

    /**
     * A field that is itself a struct, typed: {@code structField("pos", Point.class)}.
     *
     * @param name the component's name
     * @param type its record class
     * @param <S> its record type
     * @return the field
     * @throws IllegalArgumentException if there is no such component, or it is not a struct of {@code type}
     */
    <S extends Record> Struct<S> structField(String name, Class<S> type);
}
