/**
 * Workers, queues and dispatch. Not exported: nothing here is API.
 *
 * <p>The seam for other backends is {@link dev.moroutine.internal.Worker}: every task reaches a
 * worker through {@link dev.moroutine.internal.Worker#dispatch}, and a task is fully described by
 * its moroutine's id and its arguments ({@link dev.moroutine.internal.Call}).
 */
package dev.moroutine.internal;
