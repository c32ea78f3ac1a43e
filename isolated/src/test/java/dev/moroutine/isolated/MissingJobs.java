package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo0;

/**
 * Moroutines that a worker JVM started with {@link #MISSING} set cannot load, as when the class
 * is not on its path or its initialisation fails there: the child's reader refuses such a task
 * when it decodes it.
 */
public final class MissingJobs {

    /** The system property, set in the worker JVMs only, under which this class cannot initialise. */
    public static final String MISSING = "moroutine.test.missingJobs";

    static {
        if (Boolean.getBoolean(MISSING)) {
            throw new IllegalStateException("MissingJobs cannot initialise in this JVM");
        }
    }

    private MissingJobs() {}

    public static final Mo0<String> present = mo(() -> "here");
}
