/**
 * Streaming moroutines: functions that produce a sequence of items on a worker, consumed on the
 * caller (or on another worker) with backpressure; {@link dev.moroutine.stream.Streaming#channel
 * channel(…)} fans one source out over several consumers, and {@link dev.moroutine.stream.Streaming#map
 * map(…)} runs an unbounded sequence of tasks with bounded concurrency.
 *
 * <h2>Backpressure</h2>
 * A producer blocks while {@code highWaterMark} items (default 256, as the JDK's
 * {@link java.util.concurrent.Flow#defaultBufferSize()}, per consumer of a channel too) are in flight:
 * emitted, not yet taken by the consumer. Items are delivered in the order they were emitted, each
 * exactly once.
 *
 * <h2>Memory consistency</h2>
 * The producer's actions before emitting an item <i>happen-before</i> the consumer's actions after
 * taking it.
 */
package dev.moroutine.stream;
