package dev.moroutine.internal.stream;

/**
 * What a {@link LiveStreamImpl} pulls from: a pipe, or the completions of {@code map}. One consumer
 * thread at a time calls {@link #next()}; {@link #cancel()} may come from any thread (a close from
 * another thread, the cleaner of an unreachable stream).
 *
 * <p>The contract, which every implementation keeps (one contract test runs on each):
 * <ul>
 *   <li>{@code next()} returns the items in the source's order (a pipe's: as emitted; {@code map}'s: as
 *       completed), then {@link #END}; after {@code END} it returns {@code END} again, at every call.</li>
 *   <li>A producer's failure is thrown by {@code next()} after the items produced before it: a
 *       {@link dev.moroutine.TaskFailedException} whose cause is what the producer threw, or a
 *       {@link java.util.concurrent.CancellationException} when the producer was stopped rather than
 *       failed. The source stays failed: every later {@code next()} throws it again, until {@code cancel()}.</li>
 *   <li>{@code cancel()} is idempotent. From when it returns, {@code next()} returns {@code END}: items
 *       not taken yet, and a failure not thrown yet (or thrown before), are dropped; a {@code next()}
 *       blocked in another thread at the time returns {@code END} too.</li>
 *   <li>An interrupt of the consumer blocked in {@code next()} cancels the source: that call throws
 *       {@link java.util.concurrent.CancellationException} with the thread's interrupt status set,
 *       and later calls return {@code END}.</li>
 * </ul>
 */
interface ItemSource {

    /** Returned by {@link #next()} at the end. */
    Object END = new Object();

    /**
     * Takes the next item, blocking until there is one.
     *
     * @return the item, or {@link #END}
     * @throws dev.moroutine.TaskFailedException if the producer failed (see the class comment)
     * @throws java.util.concurrent.CancellationException if the producer was stopped, or the waiting consumer interrupted
     */
    Object next();

    /** The consumer stops early: stop producing, and end the source for the consumer. Idempotent. */
    void cancel();
}
