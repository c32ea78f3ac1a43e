package dev.moroutine.shared;

/** Sizes of the stress loops: {@code mvn verify -Pstress} multiplies them by 10 (as {@code dev.moroutine.Stress}). */
final class SharedStress {
    private static final int SCALE = Integer.getInteger("moroutine.stress.scale", 1);

    private SharedStress() {}

    static int scaled(int count) {
        return Math.multiplyExact(count, SCALE);
    }
}
