package dev.moroutine.shared;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The size in shared memory of a {@code String} or {@code byte[]} record component, which
 * {@link Shared#struct} needs because a struct has a fixed size:
 *
 * <pre>{@code
 * record User(int id, @MaxBytes(32) String name, @MaxBytes(16) byte[] hash) {}
 * }</pre>
 *
 * <ul>
 *   <li>On a {@code String}: the most UTF-8 bytes it may hold, as {@link Shared#string(int)}. A
 *       record whose string is longer cannot be stored.</li>
 *   <li>On a {@code byte[]}: its length, as {@link Shared#bytes(int)}; a record whose array has
 *       another length cannot be stored (the message gives both lengths).</li>
 * </ul>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface MaxBytes {

    /**
     * The size in bytes.
     *
     * @return at least 1
     */
    int value();
}
