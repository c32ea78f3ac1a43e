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
 * <p>A native wait blocks the calling thread in the kernel: only {@link ProcessWaits}' own
 * platform threads call {@link #await}, never a caller's thread (it would pin a virtual thread's
 * carrier and ignore {@link Thread#interrupt()}).
 */
final class NativeFutex {

    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final long SYS_FUTEX = sysFutex();
    private static final MethodHandle SYSCALL = syscall();
    /** Whether this platform has the futex this class calls. */
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

    @SuppressWarnings("restricted") // the one downcall, to futex(2); the module needs --enable-native-access
    private static MethodHandle syscall() {
        if (SYS_FUTEX < 0) {
            return null;
        }
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

    private static long call(long address, int op, int value, long timespec) {
        try {
            return (long) SYSCALL.invokeExact(SYS_FUTEX, address, (long) op, (long) value, timespec, 0L, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("futex(2) failed: " + t, t);
        }
    }

    /**
     * Sleeps while the word at {@code address} holds {@code expected}, until a {@link #wake} of it
     * (from any process), a signal, or a spurious return; no timeout. The kernel compares and
     * queues atomically with respect to wakes of the word.
     */
    static void await(long address, int expected) {
        call(address, FUTEX_WAIT, expected, 0L);
    }

    /**
     * As {@link #await(long, int)}, for at most {@code timeoutNanos}.
     *
     * @param timespec 16 bytes of native memory for the relative timeout ({@code struct timespec}), the caller's own
     */
    static void await(long address, int expected, long timeoutNanos, MemorySegment timespec) {
        timespec.set(ValueLayout.JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
        call(address, FUTEX_WAIT, expected, timespec.address());
    }

    /** Wakes up to {@code count} native waiters of the word; returns how many. */
    static int wake(long address, int count) {
        long woken = call(address, FUTEX_WAKE, count, 0L);
        return woken < 0 ? 0 : (int) woken;
    }
}
