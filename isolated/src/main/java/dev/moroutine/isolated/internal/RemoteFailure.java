package dev.moroutine.isolated.internal;

/**
 * A throwable as it crosses back from a worker JVM: its class's name, message and stack, its
 * cause and suppressed ones, all as strings and numbers, so that any throwable crosses without its
 * class being registered (see {@link Codec#encodeFailure}).
 *
 * @param type the throwable's class name
 * @param message its message, or null
 * @param classes each stack frame's class
 * @param methods each frame's method
 * @param files each frame's file, or null
 * @param lines each frame's line
 * @param cause its cause, or null
 * @param suppressed the exceptions it suppressed
 */
record RemoteFailure(String type, String message, String[] classes, String[] methods, String[] files, int[] lines,
        RemoteFailure cause, RemoteFailure[] suppressed) {}
