package dev.moroutine.shared;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A shared {@code int} with atomic operations. Made by {@code Shared.shared(int32Atomic)}.
 *
 * <p>Thread-safe and lock-free. Every operation is a single atomic access with <em>volatile</em>
 * (sequentially consistent) semantics, like the JavaScript {@code Atomics} functions and the
 * {@code java.util.concurrent.atomic} classes: a {@link #store} or a read-modify-write
 * <i>happens-before</i> every operation that reads the value it wrote. The read-modify-writes
 * return the value that was there before (as {@code Atomics.add} does), and
 * {@link #compareExchange} returns the witness: the value found, which equals {@code expected}
 * exactly when the exchange happened.
 *
 * <h2>Waiting</h2>
 * Futex-style: {@link #await(int)} waits while the value equals {@code expected}, and {@link #wake()}
 * wakes the waiters. The check and the start of the wait are one atomic step with respect to
 * {@code wake}: change the value (with any operation of this type), then call {@code wake}, and no
 * waiter that saw the old value can miss it. Waiters are woken oldest first. A wait parks the
 * thread (a virtual thread releases its carrier); nothing spins or sits in native code. A waiter
 * may also return {@code OK} having seen no change of value (another thread called {@code wake}),
 * so re-check the value after a wait, as with any futex. In this process the waiters are kept in a
 * registry keyed by the word's native address, so every view of the same memory shares them.
 *
 * <p>Interrupts: the blocking {@code await}s throw {@link InterruptedException} if the thread is
 * interrupted before or while waiting (the waiter is removed and no wake is consumed); a thread
 * that is woken and interrupted at the same moment returns {@code OK} with its interrupt status set.
 * {@link #waitAsync} involves no thread and ignores interrupts.
 */
public sealed interface Int32Atomic extends SharedValue permits dev.moroutine.internal.shared.Int32AtomicCell {

    /**
     * Reads the value (volatile).
     *
     * @return the value
     */
    int load();

    /**
     * Writes the value (volatile).
     *
     * @param value the new value
     */
    void store(int value);

    /**
     * Adds atomically; overflow wraps around.
     *
     * @param delta what to add
     * @return the value before
     */
    int add(int delta);

    /**
     * Subtracts atomically; overflow wraps around.
     *
     * @param delta what to subtract
     * @return the value before
     */
    int sub(int delta);

    /**
     * Bitwise AND, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    int and(int mask);

    /**
     * Bitwise OR, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    int or(int mask);

    /**
     * Bitwise XOR, atomically.
     *
     * @param mask the other operand
     * @return the value before
     */
    int xor(int mask);

    /**
     * Replaces the value atomically.
     *
     * @param value the new value
     * @return the value before
     */
    int exchange(int value);

    /**
     * Replaces the value with {@code replacement} if it is {@code expected}, atomically.
     *
     * @param expected the value to replace
     * @param replacement the new value
     * @return the value found (the witness): {@code expected} if it was replaced
     */
    int compareExchange(int expected, int replacement);

    /**
     * Waits, parking, while the value equals {@code expected}, until {@link #wake()} is called.
     *
     * @param expected the value to wait on
     * @return {@code NOT_EQUAL} at once if the value differs, else {@code OK} when woken
     * @throws InterruptedException if the thread is interrupted before or while waiting
     */
    WaitResult await(int expected) throws InterruptedException;

    /**
     * Waits, parking, while the value equals {@code expected}, until woken or for at most {@code timeout}.
     *
     * @param expected the value to wait on
     * @param timeout the longest wait; zero checks the value without waiting
     * @return {@code NOT_EQUAL} at once if the value differs, {@code OK} when woken, {@code TIMED_OUT}
     * @throws InterruptedException if the thread is interrupted before or while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    WaitResult await(int expected, Duration timeout) throws InterruptedException;

    /**
     * Waits without a thread: the future completes when woken. It never completes on the waking
     * thread (a virtual thread completes it), so dependent stages do not run inside {@code wake}.
     * Cancelling the future withdraws the waiter.
     *
     * @param expected the value to wait on
     * @return a future of {@code OK}; already completed with {@code NOT_EQUAL} if the value differs
     */
    CompletableFuture<WaitResult> waitAsync(int expected);

    /**
     * Waits without a thread, for at most {@code timeout}; see {@link #waitAsync(int)}.
     *
     * @param expected the value to wait on
     * @param timeout the longest wait; zero checks the value without waiting
     * @return a future of {@code OK} or {@code TIMED_OUT}; already completed with {@code NOT_EQUAL}
     *     if the value differs
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    CompletableFuture<WaitResult> waitAsync(int expected, Duration timeout);

    /**
     * Wakes every waiter of this word (the seed's {@code notify()}).
     *
     * @return how many were woken
     */
    int wake();

    /**
     * Wakes at most {@code count} waiters of this word, oldest first.
     *
     * @param count the most to wake; 0 wakes none
     * @return how many were woken
     * @throws IllegalArgumentException if {@code count} is negative
     */
    int wake(int count);
}
