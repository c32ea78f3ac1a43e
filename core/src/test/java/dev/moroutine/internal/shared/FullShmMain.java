package dev.moroutine.internal.shared;

import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Shared;

/**
 * Run by {@link SharedFilesTest#aFullDevShmFailsAtTheAllocationWithItsReason} in a mount
 * namespace whose /dev/shm is a 3 MiB tmpfs: allocates and uses shared values, as an application
 * with an isolated pool open does, until something fails, and prints what.
 */
public final class FullShmMain {

    private FullShmMain() {}

    public static void main(String[] args) throws Exception {
        System.out.println("directory " + SharedFiles.enable());
        int i = 0;
        String stage = "shared()";
        try {
            for (; i < 10_000; i++) { // about 10 MiB of values
                stage = "shared()";
                Shared.shared(Shared.bytes(1000));
                Int32Atomic value = Shared.shared(Shared.int32Atomic);
                stage = "store()";
                value.store(i);
            }
            System.out.println("no failure after " + i + " values");
        } catch (Throwable t) {
            System.out.println("failed in " + stage + " after " + i + " values: " + t);
        }
    }
}
