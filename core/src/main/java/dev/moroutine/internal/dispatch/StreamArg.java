package dev.moroutine.internal.dispatch;

/**
 * Marks an argument position that was given a stream task or a channel for a {@code Stream} or
 * {@code Iterable} parameter, so that a channel passed as a plain value of a parameter typed
 * {@code Channel} or {@code Object} stays a value.
 *
 * @param endpoint the stream, bound on the worker for each execution
 */
public record StreamArg(Endpoint endpoint) {}
