/**
 * The dispatch layer and the seam: {@link dev.moroutine.internal.dispatch.Worker} is what a
 * backend implements, {@link dev.moroutine.internal.dispatch.Invocation} is a task as it crosses
 * it (the moroutine's id and its arguments, streams as {@link dev.moroutine.internal.dispatch.Endpoint}s),
 * and {@link dev.moroutine.internal.dispatch.Execution} is one run of it and the caller's future.
 * The thread backend ({@link dev.moroutine.internal.dispatch.ThreadWorker}) lives here too.
 * Depends on nothing of the library's but {@code internal.shared} and the public types it reports
 * through (exceptions, {@code Signal}, {@code AbortController}, {@code WorkerHandle}); see
 * {@code ARCHITECTURE.md} at the root of the repository for the layers.
 */
package dev.moroutine.internal.dispatch;
