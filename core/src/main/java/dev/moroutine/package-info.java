/**
 * The moroutine API: {@link dev.moroutine.Moroutine#mo mo(…)} defines a moroutine,
 * {@link dev.moroutine.Moroutine#workers workers(…)} makes a pool, and a {@link dev.moroutine.Task}
 * describes one call.
 *
 * <h2>Memory consistency</h2>
 * Actions of a thread before it dispatches a task ({@link dev.moroutine.Task#join()},
 * {@link dev.moroutine.Task#future()}, {@link dev.moroutine.Pool#run}, {@link dev.moroutine.Pool#submit})
 * <i>happen-before</i> the moroutine's body runs on its worker, and the body's actions
 * <i>happen-before</i> the caller sees its result or exception.
 *
 * <h2>Workers</h2>
 * A worker is one platform daemon thread that runs its tasks one at a time in the order they
 * reached it; nothing in this library keeps the JVM alive. All blocking calls park, so they are
 * safe to call from virtual threads.
 */
package dev.moroutine;
