package dev.moroutine.examples;

/**
 * The self-check that ends every example: prints {@code check: OK (…)} or {@code check: FAILED (…)}
 * and, on failure, throws, so that running an example alone exits non-zero and {@link Tour} counts it.
 */
public final class Check {

    private Check() {}

    /**
     * Prints the example's check line.
     *
     * @param ok whether the example's result is what it should be
     * @param detail what was compared, for the reader
     * @throws AssertionError if {@code ok} is false
     */
    public static void check(boolean ok, String detail) {
        System.out.println("check: " + (ok ? "OK" : "FAILED") + " (" + detail + ")");
        if (!ok) {
            throw new AssertionError("check failed: " + detail);
        }
    }
}
