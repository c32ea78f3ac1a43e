package dev.moroutine.internal;

/**
 * Marks an argument position that was given a task (a task-arg) rather than a value, so that a
 * {@link Call} passed as a plain value of a parameter typed {@code Object} stays a value.
 *
 * @param task the task whose value, resolved on the worker, is the argument: a {@link Call}, or a
 *     {@link ChannelImpl} that the worker attaches to
 */
record TaskArg(Object task) {}
