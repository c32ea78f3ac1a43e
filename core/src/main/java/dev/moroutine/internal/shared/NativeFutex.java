package dev.moroutine.internal.shared;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * The operating system's futex, through the FFM API: {@code syscall(SYS_futex, address,
 * FUTEX_WAIT | FUTEX_WAKE, …)} on a word of shared memory, without {@code FUTEX_PRIVATE_FLAG}, so
 * that the kernel keys the word by its file page and a wake reaches a waiter in another process
 * that maps the same file. Linux on x86-64 and AArch64 only ({@link #AVAILABLE}); elsewhere shared
 * memory does not cross to other processes.
 *
 * <p>The downcall handle is a restricted method: it is made only if this module has native access
 * ({@code --enable-native-access=dev.moroutine}, or {@code ALL-UNNAMED} on the class path), so
 * that the JDK never prints its warning on a user's stderr; without it {@link #AVAILABLE} is false
 * and {@link #UNAVAILABLE} says why and which flag to give.
 *
 * <p>The waits and wakes are the bitset ones ({@code FUTEX_WAIT_BITSET}, {@code FUTEX_WAKE_BITSET}):
 * a waiter sleeps with one bit, and a waker wakes the waiters whose bit is in its mask, so that a
 * process's wake skips its own proxy ({@link ProcessWaits}).
 *
 * <p>A native wait blocks the calling thread in the kernel: only {@link ProcessWaits}' own
 * platform threads call {@link #await}, never a caller's thread (it would pin a virtual thread's
 * carrier and ignore {@link Thread#interrupt()}).
 */
final class NativeFutex {

    private static final int FUTEX_WAIT_BITSET = 9;
    private static final int FUTEX_WAKE_BITSET = 10;
    private static final long SYS_FUTEX = sysFutex();
    /** Why there is no futex here, or null if there is. */
    static final String UNAVAILABLE = unavailable();
    private static final MethodHandle SYSCALL = UNAVAILABLE == null ? syscall() : null;
    /** Whether this platform has the futex this class calls, and this module may call it. */
    static final boolean AVAILABLE = SYSCALL != null;

    private NativeFutex() {}

    private static long sysFutex() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return -1;
        }
        return switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> 202;
            case "aarch64" -> 98;
            default -> -1;
        };
    }

    private static String unavailable() {
        if (SYS_FUTEX < 0) {
            return "shared memory across processes needs Linux on x86-64 or AArch64 (its waits are futexes); this is "
                    + System.getProperty("os.name") + " on " + System.getProperty("os.arch");
        }
        Module module = NativeFutex.class.getModule();
        if (!module.isNativeAccessEnabled()) {
            return "shared memory across processes calls the kernel's futex through the FFM API, which needs native access:"
                    + " give this JVM --enable-native-access=" + (module.isNamed() ? module.getName() : "ALL-UNNAMED");
        }
        return null;
    }

    @SuppressWarnings("restricted") // the one downcall, to futex(2); the module needs --enable-native-access
    private static MethodHandle syscall() {
        try {
            Linker linker = Linker.nativeLinker();
            Optional<MemorySegment> symbol = linker.defaultLookup().find("syscall");
            if (symbol.isEmpty()) {
                return null;
            }
            // long syscall(long number, ...): every argument passed as a 64-bit integer.
            ValueLayout l = ValueLayout.JAVA_LONG;
            return linker.downcallHandle(symbol.get(), FunctionDescriptor.of(l, l, l, l, l, l, l, l),
                    Linker.Option.firstVariadicArg(1));
        } catch (RuntimeException | LinkageError unavailable) {
            return null;
        }
    }

    private static long call(long address, int op, int value, long timespec, int bitset) {
        try {
            return (long) SYSCALL.invokeExact(SYS_FUTEX, address, (long) op, (long) value, timespec, 0L, (long) bitset);
        } catch (Throwable t) {
            throw new IllegalStateException("futex(2) failed: " + t, t);
        }
    }

    /**
     * Sleeps while the word at {@code address} holds {@code expected}, until a {@link #wake} of it
     * (from any process) whose mask has a bit of {@code bitset}, a signal, a spurious return, or
     * {@code deadline}. The kernel compares and queues atomically with respect to wakes of the word.
     *
     * @param deadline when to stop, in {@link System#nanoTime()} (HotSpot's is {@code CLOCK_MONOTONIC},
     *     the clock of the bitset wait's absolute timeout)
     * @param timespec 16 bytes of native memory for it ({@code struct timespec}), the caller's own
     */
    static void await(long address, int expected, int bitset, long deadline, MemorySegment timespec) {
        long at = Math.max(0, deadline);
        timespec.set(ValueLayout.JAVA_LONG, 0, at / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, at % 1_000_000_000L);
        call(address, FUTEX_WAIT_BITSET, expected, timespec.address(), bitset);
    }

    /** Wakes up to {@code count} native waiters of the word whose bit is in {@code mask}; returns how many. */
    static int wake(long address, int count, int mask) {
        long woken = call(address, FUTEX_WAKE_BITSET, count, 0L, mask);
        return woken < 0 ? 0 : (int) woken;
    }
}
