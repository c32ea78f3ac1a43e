package dev.moroutine.closed;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Task;

/**
 * A class of a user's module that exports its package to {@code dev.moroutine} but does not open
 * it, so the library cannot read its package-private moroutines. {@code ModuleAccessTest} loads it
 * into a module of its own; its expected messages hold the line numbers of the {@code mo(…)} calls.
 */
public final class Orders {

    static final Mo1<String, String> openShard = mo(shard -> "opened " + shard);
    static final Mo1<String, String> count = mo(shard -> shard);
    static final Mo0<String> name = mo(() -> "orders");

    private Orders() {}

    /**
     * Describes a call of {@code openShard}, which looks it up.
     *
     * @return the task
     */
    public static Task<String> openShard() {
        return openShard.call("a");
    }

    /**
     * Describes a call of {@code name}, which looks it up.
     *
     * @return the task
     */
    public static Task<String> name() {
        return name.call();
    }
}
