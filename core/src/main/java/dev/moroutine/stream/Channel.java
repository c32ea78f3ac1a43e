package dev.moroutine.stream;

import dev.moroutine.Task;

/**
 * One source shared by several consumers: pass the same channel to several tasks (as their
 * {@code Stream<T>} or {@code Iterable<T>} argument) and each item goes to exactly one of them.
 * Made by {@link Streaming#channel(Iterable)}.
 *
 * <p>No thread stands between the source and the consumers: a consumer that has used up the
 * items it took pulls the next ones from the source itself, under the channel's lock, so an item
 * reaches the consumer that asked for it with no hand-off between threads, and a quicker consumer
 * takes more of the items than a slow one. It takes a run from a {@link java.util.Collection} (up
 * to {@code highWaterMark} items), the next item and those already waiting
 * behind it from a stream task, and one item from any other {@link Iterable}, whose next item
 * may take a while to come. So an iterable's iterator runs on the consumers' threads, one at a
 * time, and one that blocks holds up the consumers waiting for it; a consumer interrupted while it
 * waits for a stream task's item fails alone, and the task goes on for the others. Each consumer
 * sees its items in source order. A stream task source runs once, on its own worker, when the
 * first consumer attaches. The channel ends when the source is exhausted (every consumer then
 * ends), when the source fails (every consumer gets the failure, after the items it already
 * took), or when every consumer that attached has closed (the source is then closed). Attaching
 * to an ended channel throws {@link IllegalStateException}. A consumer that stops early (closes
 * its stream) drops the items it took and did not use, at most its high-water mark: the channel
 * never hands an item to two consumers, so it cannot take them back.
 *
 * <p>A consumer must not run on the worker that runs the source (a source assigned to that worker,
 * or a call of the consumer's own moroutine on its dedicated worker): it would wait for items the
 * source can only produce after it. Such a consumer is refused with an
 * {@link IllegalStateException} when it is sent to that worker (a task-arg that consumes it: when
 * it runs there), and the channel fails: every
 * other consumer gets the same error (as the cause of a {@link dev.moroutine.TaskFailedException}).
 *
 * <p>As a {@link Task}, {@link #join()} attaches a consumer on the calling thread, and so do a
 * pool's {@code run}, {@code submit} and {@code runAll} given a channel: it runs on no worker.
 * For the same reason it cannot be assigned to a worker, given a timeout or placed by
 * {@code workerFor}: those throw {@link IllegalArgumentException}. Thread-safe.
 *
 * @param <T> the item type
 */
public sealed interface Channel<T> extends Task<LiveStream<T>> permits dev.moroutine.internal.stream.ChannelImpl {}
