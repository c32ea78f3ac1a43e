package dev.moroutine.testing;

/** Sizes of the stress loops: {@code mvn verify -Pstress} multiplies them by 10. */
public final class Stress {
    private static final int SCALE = Integer.getInteger("moroutine.stress.scale", 1);

    private Stress() {}

    public static int scaled(int count) {
        return Math.multiplyExact(count, SCALE);
    }
}
