/**
 * The call layer: moroutine definitions (identity, dedicated worker), calls (the value
 * {@link dev.moroutine.Task}s), and the pool, which balances calls over its workers. Depends only on
 * {@code internal.dispatch}; see {@code ARCHITECTURE.md} at the root of the repository.
 */
package dev.moroutine.internal.call;
