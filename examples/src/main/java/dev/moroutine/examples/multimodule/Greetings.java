package dev.moroutine.examples.multimodule;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;

/** Another class of moroutines, knowing nothing of {@link Arithmetic}. */
public final class Greetings {

    private Greetings() {}

    /** Greets someone and says on which thread. */
    public static final Mo1<String, Result<String>> greet = mo(name -> Result.here("Hello, " + name + "!"));
}
