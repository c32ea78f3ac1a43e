/**
 * Typed shared memory: scalars, atomics, structs laid out from records, tuples, bytes, strings,
 * and the {@link dev.moroutine.shared.Mutex} and {@link dev.moroutine.shared.RwLock} locks, all
 * off the Java heap (FFM {@link java.lang.foreign.MemorySegment}s). Start at
 * {@link dev.moroutine.shared.Shared}.
 *
 * <p>A shared value is a view: {@code (segment, offset, layout)} and nothing else. Pass one as a
 * moroutine argument and the worker uses the same memory; lock and atomic state live in that
 * memory, not in Java objects beside it, so the same bytes mapped from a file by a later process
 * backend keep working (layouts: native byte order, natural alignment, C struct rules; the
 * diagrams are in the implementation's {@code Layouts}).
 *
 * <h2>Memory consistency</h2>
 * <table class="striped">
 *   <caption>What each operation orders</caption>
 *   <thead><tr><th>operation</th><th>access mode</th><th>guarantee</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@code load}/{@code store} of a scalar ({@code Int32}, {@code Bool}, …), and of each
 *       field of a struct, element of a tuple, byte of bytes or a string</td>
 *       <td>opaque (a struct's {@code load}: its 64-bit fields opaque, the narrower ones plain after
 *       one load-load fence)</td><td>each access is untorn and eventually seen, but orders nothing else;
 *       a later load of the same value never sees an older write than an earlier load did;
 *       a struct, tuple, string or bytes as a whole is not atomic</td></tr>
 *   <tr><td>every operation of {@code Int32Atomic}, {@code Int64Atomic}, {@code BoolAtomic}</td>
 *       <td>volatile</td><td>sequentially consistent; a write <i>happens-before</i> every read
 *       that sees it, so it publishes what the writer did before it</td></tr>
 *   <tr><td>{@code Guard.close()} of a {@code Mutex} / write lock, then a later acquisition</td>
 *       <td>release / acquire</td><td>the holder's writes <i>happen-before</i> the next holder's reads</td></tr>
 *   <tr><td>{@code Int32Atomic.wake}, then the {@code OK} of a woken {@code await}</td>
 *       <td>—</td><td>no ordering of its own: the waker's change of the value is what publishes;
 *       re-read the value after waking</td></tr>
 *   </tbody>
 * </table>
 *
 * <h2>Blocking</h2>
 * Nothing here blocks except {@code await}, {@code lock}, {@code readLock} and {@code writeLock}
 * (and their timed forms), which park: a virtual thread releases its carrier, no monitor is held,
 * nothing waits in native code. Platform threads spin for a few hundred nanoseconds before parking
 * on a lock; nothing spins without bound. {@code …Async} variants never block the caller.
 *
 * <h2>Bad input</h2>
 * A wrong-length {@code store}, a string over its maximum, an unsigned value out of range, a size
 * below 1, a negative timeout or an unsupported record component throws
 * {@link java.lang.IllegalArgumentException} (an offset outside a segment,
 * {@link java.lang.IndexOutOfBoundsException}) whose message gives the sizes or the value, and the
 * memory is left unchanged.
 */
package dev.moroutine.shared;
