package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Shared;

/**
 * Run by {@link SharedFilesTest#aFullDevShmFallsBackAtTheAllocationWithItsReason} in a mount
 * namespace whose /dev/shm is a 3 MiB tmpfs: allocates and uses shared values, as an application
 * with an isolated pool open does, until something fails, and prints what.
 */
public final class FullShmMain {

    private FullShmMain() {}

    public static void main(String[] args) throws Exception {
        System.out.println("directory " + SharedFiles.enable());
        int i = 0;
        String stage = "shared()";
        java.util.List<Object> kept = new java.util.ArrayList<>();
        int inFiles = 0;
        try {
            for (; i < 10_000; i++) { // about 10 MiB of values, all kept
                stage = "shared()";
                kept.add(Shared.shared(Shared.bytes(1000)));
                Int32Atomic value = Shared.shared(Shared.int32Atomic);
                kept.add(value);
                stage = "store()";
                value.store(i);
                AbstractCell cell = (AbstractCell) value;
                if (SharedFiles.locate(cell.segment(), cell.offset()) != null) {
                    inFiles++;
                }
            }
            System.out.println("no failure after " + i + " values, " + inFiles + " in files");
            System.out.println("fallback: " + SharedFiles.fallback());
        } catch (Throwable t) {
            System.out.println("failed in " + stage + " after " + i + " values: " + t);
        }
    }
}
