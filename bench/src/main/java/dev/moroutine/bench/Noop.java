package dev.moroutine.bench;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo0;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The task every benchmark dispatches: it does nothing and returns {@code 1}, so what is measured is
 * the dispatch, the hand-off to a worker thread and the wait for the result.
 */
public final class Noop {

    /** The moroutine; it must sit in a {@code static final} field, which is its identity. */
    public static final Mo0<Integer> noop = mo(() -> 1);

    /** The same task for {@code ExecutorService.submit}. */
    public static final Callable<Integer> CALLABLE = () -> 1;

    /** The same task for {@code CompletableFuture.supplyAsync}. */
    public static final Supplier<Integer> SUPPLIER = () -> 1;

    private Noop() {}
}
