/**
 * The implementation of {@code dev.moroutine.shared}. Not exported: nothing here is API.
 *
 * <p>{@link dev.moroutine.internal.shared.Layouts} holds every layout and its diagram; the
 * accessors in {@code Memory} are named after their access mode; {@code Futex} is the waiter
 * registry that the atomics' wait/wake and both locks wait through; {@code StructAccessors}
 * generates, per struct descriptor, the class of its cells, which loads and stores whole records.
 */
package dev.moroutine.internal.shared;
