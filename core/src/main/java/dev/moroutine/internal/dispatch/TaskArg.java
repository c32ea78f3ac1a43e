package dev.moroutine.internal.dispatch;

/**
 * Marks an argument position that was given a task (a task-arg) rather than a value, so that a
 * task passed as a plain value of a parameter typed {@code Object} stays a value.
 *
 * @param task the invocation whose value, resolved on the worker and cached there, is the argument
 */
public record TaskArg(Invocation task) {}
