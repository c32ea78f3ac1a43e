package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo2;
import dev.moroutine.shared.Int32Atomic;

/** The README's shared-memory moroutine. */
public final class SharedJobs {

    private SharedJobs() {}

    public static final Mo2<Int32Atomic, Integer, Integer> countHits = mo((hits, n) -> {
        for (int i = 0; i < n; i++) {
            hits.add(1); // atomic: returns the value before
        }
        return n;
    });
}
