package dev.moroutine.internal.shared;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Every byte that shared memory holds, in one place: the layouts of the scalars, the atomics, the
 * locks, strings and bytes, and the rules by which structs and tuples are laid out. A later
 * process backend maps the same bytes from a file, so these layouts are a format: change one only
 * together with {@link #FORMAT_VERSION}.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>All numbers are in the platform's native byte order, at their natural alignment.</li>
 *   <li>Structs and tuples place their members in declaration order, each at the next offset that
 *       is a multiple of its alignment; the whole is padded to a multiple of its largest alignment
 *       (C's rule), so an {@code int32} after a {@code bool} sits at offset 4.</li>
 *   <li>A standalone atomic, mutex or rwlock ({@code shared(int32Atomic)}, {@code shared(mutex)}) gets a
 *       cache line of its own ({@link #CACHE_LINE} bytes, aligned), so two hot words allocated one
 *       after the other never share a line. Members of a struct or tuple are packed as above.</li>
 *   <li>No lock or atomic state lives in a Java object: a value is fully described by
 *       (segment, offset, layout).</li>
 * </ul>
 *
 * <h2>Scalars and atomics</h2>
 * <pre>
 * bool    1 byte   0 = false, 1 = true (any non-zero byte loads as true)
 * int8    1 byte     uint8    1 byte     int16   2 bytes    uint16   2 bytes
 * int32   4 bytes    uint32   4 bytes    int64   8 bytes
 * float32 4 bytes (IEEE 754)             float64 8 bytes (IEEE 754)
 * int32Atomic 4 bytes, int64Atomic 8 bytes: as int32 and int64
 * boolAtomic  4 bytes: an int32 holding 0 or 1 (the JVM has no atomic read-modify-write on a byte)
 * </pre>
 *
 * <h2>string(n)</h2>
 * <pre>
 *  0         4                          4+n     (padded to a multiple of 4)
 *  +---------+--------------------------+
 *  | length  | UTF-8 bytes, n of them   |   length: int32, 0..n, the bytes in use
 *  +---------+--------------------------+
 * </pre>
 *
 * <h2>bytes(n)</h2>
 * <pre>
 *  0                          n
 *  +--------------------------+
 *  | n bytes                  |   no header: always exactly n bytes
 *  +--------------------------+
 * </pre>
 *
 * <h2>mutex</h2>
 * <pre>
 *  0        4
 *  +--------+
 *  | state  |   int32: 0 unlocked, 1 locked, 2 locked and maybe waited for (see MutexCell)
 *  +--------+
 * </pre>
 *
 * <h2>rwLock</h2>
 * <pre>
 *  0        4         8        12        16
 *  +--------+---------+--------+---------+
 *  | state  | writers | epoch  | sleepers|
 *  +--------+---------+--------+---------+
 *  state:    bits 0..29 the readers holding it, bit 30 (WRITER) set while a writer holds it
 *  writers:  writers waiting for it; while non-zero, new readers wait (writer preference)
 *  epoch:    bumped by every release that a waiter may be waiting for; waiters futex-wait on it
 *  sleepers: threads between deciding to wait and waking up; a release with none skips the wake
 * </pre>
 */
public final class Layouts {

    /** The version of this format; a file-backed mapping stores it in its header. */
    public static final int FORMAT_VERSION = 1;

    /** Bytes in a cache line on the platforms we run on (x86-64, AArch64). */
    public static final long CACHE_LINE = 64;

    /** {@code bool}. */
    public static final ValueLayout.OfBoolean BOOL = ValueLayout.JAVA_BOOLEAN;
    /** {@code int8} and {@code uint8}. */
    public static final ValueLayout.OfByte INT8 = ValueLayout.JAVA_BYTE;
    /** {@code int16} and {@code uint16}. */
    public static final ValueLayout.OfShort INT16 = ValueLayout.JAVA_SHORT;
    /** {@code int32}, {@code uint32}, {@code int32Atomic}, {@code boolAtomic} and lock words. */
    public static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT;
    /** {@code int64} and {@code int64Atomic}. */
    public static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG;
    /** {@code float32}. */
    public static final ValueLayout.OfFloat FLOAT32 = ValueLayout.JAVA_FLOAT;
    /** {@code float64}. */
    public static final ValueLayout.OfDouble FLOAT64 = ValueLayout.JAVA_DOUBLE;

    /** The mutex: one state word. */
    public static final MemoryLayout MUTEX = MemoryLayout.structLayout(INT32.withName("state")).withName("mutex");
    /** Offset of the mutex's state word. */
    public static final long MUTEX_STATE = 0;

    /** The rwlock: four words. */
    public static final MemoryLayout RW_LOCK = MemoryLayout.structLayout(
            INT32.withName("state"), INT32.withName("writers"), INT32.withName("epoch"), INT32.withName("sleepers"))
            .withName("rwLock");
    /** Offset of the rwlock's state word. */
    public static final long RW_STATE = 0;
    /** Offset of the rwlock's waiting-writers count. */
    public static final long RW_WRITERS = 4;
    /** Offset of the rwlock's epoch, the word its waiters wait on. */
    public static final long RW_EPOCH = 8;
    /** Offset of the rwlock's count of waiting threads. */
    public static final long RW_SLEEPERS = 12;

    /** Offset of the length word of a {@code string(n)}. */
    public static final long STRING_LENGTH = 0;
    /** Offset of the UTF-8 bytes of a {@code string(n)}. */
    public static final long STRING_BYTES = 4;

    private Layouts() {}

    /**
     * The layout of {@code string(maxBytes)}.
     *
     * @param maxBytes the most UTF-8 bytes it holds
     * @return length word, bytes, padding to a multiple of 4
     */
    public static MemoryLayout string(int maxBytes) {
        return struct("string(" + maxBytes + ")", List.of(
                INT32.withName("length"),
                MemoryLayout.sequenceLayout(maxBytes, INT8).withName("utf8")));
    }

    /**
     * The layout of {@code bytes(size)}.
     *
     * @param size the number of bytes
     * @return a sequence of {@code size} bytes
     */
    public static MemoryLayout bytes(int size) {
        return MemoryLayout.sequenceLayout(size, INT8).withName("bytes(" + size + ")");
    }

    /**
     * Lays out members in order at their natural alignment, padding between them and at the end.
     *
     * @param name the layout's name
     * @param members the members, each already named
     * @return a struct layout whose members sit at {@link #offsets}
     */
    public static MemoryLayout struct(String name, List<MemoryLayout> members) {
        List<MemoryLayout> laid = new ArrayList<>();
        long offset = 0;
        long alignment = 1;
        for (MemoryLayout member : members) {
            long align = member.byteAlignment();
            alignment = Math.max(alignment, align);
            long aligned = alignUp(offset, align);
            if (aligned > offset) {
                laid.add(MemoryLayout.paddingLayout(aligned - offset));
            }
            laid.add(member);
            offset = aligned + member.byteSize();
        }
        long end = alignUp(Math.max(offset, 1), alignment);
        if (end > offset) {
            laid.add(MemoryLayout.paddingLayout(end - offset));
        }
        return MemoryLayout.structLayout(laid.toArray(MemoryLayout[]::new)).withName(name);
    }

    /**
     * Where each member of a {@link #struct} layout starts.
     *
     * @param members the members, as given to {@link #struct}
     * @return their byte offsets
     */
    public static long[] offsets(List<MemoryLayout> members) {
        long[] offsets = new long[members.size()];
        long offset = 0;
        for (int i = 0; i < offsets.length; i++) {
            MemoryLayout member = members.get(i);
            offset = alignUp(offset, member.byteAlignment());
            offsets[i] = offset;
            offset += member.byteSize();
        }
        return offsets;
    }

    /**
     * Rounds up to a multiple of a power of two.
     *
     * @param value a non-negative number
     * @param alignment a power of two
     * @return the smallest multiple of {@code alignment} that is at least {@code value}
     */
    public static long alignUp(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }
}
