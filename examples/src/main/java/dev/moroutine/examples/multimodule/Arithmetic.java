package dev.moroutine.examples.multimodule;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo2;

/** One class of moroutines. */
public final class Arithmetic {

    private Arithmetic() {}

    /** Adds two numbers and says on which thread. */
    public static final Mo2<Integer, Integer, Result<Integer>> add = mo((a, b) -> Result.here(a + b));
}
