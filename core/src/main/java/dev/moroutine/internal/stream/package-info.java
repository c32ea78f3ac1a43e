/**
 * The stream layer: pipes with backpressure, stream calls, channels, live streams, publishers
 * and {@code map}. It binds its arguments and outputs as {@link dev.moroutine.internal.dispatch.Endpoint}s,
 * so dispatch never names a pipe. Depends on {@code internal.call} and {@code internal.dispatch};
 * see {@code ARCHITECTURE.md} at the root of the repository.
 */
package dev.moroutine.internal.stream;
