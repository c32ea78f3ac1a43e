package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo0;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Moroutines that kill their worker JVM in the ways threads cannot contain; loaded in the worker JVMs too. */
public final class DeathJobs {

    private DeathJobs() {}

    /** Allocates until the heap is exhausted. */
    public static final Mo0<Integer> exhaustHeap = mo(() -> {
        System.out.println("allocating without end");
        List<long[]> hoard = new ArrayList<>();
        while (true) {
            hoard.add(new long[1 << 17]); // 1 MiB each
            if (hoard.size() == Integer.MAX_VALUE) {
                return hoard.size();
            }
        }
    });

    /** Writes to address 0 through the FFM API: a SIGSEGV in native code, which the JVM cannot survive. */
    @SuppressWarnings("restricted")
    public static final Mo0<Integer> writeToAddressZero = mo(() -> {
        System.out.println("writing to address 0");
        MemorySegment.ofAddress(0).reinterpret(8).set(ValueLayout.JAVA_LONG, 0, 42L);
        return 0;
    });
}
