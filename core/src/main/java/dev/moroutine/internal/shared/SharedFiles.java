package dev.moroutine.internal.shared;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Shared memory that other processes can map: the allocator seam behind {@link Desc#allocate()},
 * and the registry of the files it maps.
 *
 * <h2>Allocation</h2>
 * While nobody has {@link #enable enabled} it (no pool of worker JVMs is open), values come from
 * {@link Arena#ofAuto()}, as always, and this class costs one volatile read per allocation. While
 * enabled, values are bump-allocated from <em>chunks</em>: files of {@link #CHUNK_SIZE} (1 MiB; a
 * larger value gets a chunk of its own), each created in a private directory (mode 0700, under
 * {@code /dev/shm} when there is one, so the pages are memory), the file mode 0600, and mapped with
 * {@link Arena#ofAuto()}. The file's pages are written when it is made, so that a full file system
 * fails there (the value then comes from {@link Arena#ofAuto()}, and {@link #fallback()} says why),
 * not as a SIGBUS at a later store. A value's segment is a slice of its chunk's mapping with an
 * automatic arena of its own, whose cleanup counts the value out of the chunk once it and all its
 * views are unreachable; the chunk, reachable from those cleanups, keeps the mapping alive until
 * then. A chunk with no value left, other than the one being allocated from, is reclaimed: its
 * file deleted and the chunk unregistered, so the collector unmaps it. The last {@link #disable}
 * deletes the remaining files and the directory (the mappings stay valid) and drops the chunks.
 * Within a chunk, memory is not reused (a bump allocator).
 *
 * <pre>
 * chunk file   0 ┌──────────────────────────────────────────┐
 *                │ wait buckets: {@link #WAIT_BUCKETS} × 64 bytes                │  see {@link ProcessWaits}
 *                │   +4 sleepers (int32)  +8 seq (int32)      │
 *                │   +12 last wake's tag (int32)               │
 *                │   bucket 0 +16: mappings so far (int32)     │
 *         4096   ├──────────────────────────────────────────┤
 *                │ values, bump-allocated, aligned            │
 *                └──────────────────────────────────────────┘
 * </pre>
 *
 * <h2>Crossing</h2>
 * A backend encodes such a value as {@link #locate (file, offset)} and its descriptor; the other
 * process {@link #attach maps the same file} and views the value there. Both register the mapping,
 * so {@link Futex} finds the wait buckets of a word by its address and wakes waiters in the other
 * processes ({@link ProcessWaits}).
 *
 * <h2>Removal</h2>
 * The files are deleted by the last {@link #disable} (the pool closes), by a shutdown hook (this
 * JVM exits), and by a worker JVM that sees its parent die ({@link #deleteDirectory}), so a parent
 * killed with SIGKILL leaves nothing behind once its workers notice.
 */
public final class SharedFiles {

    /** The size of a chunk file. */
    static final long CHUNK_SIZE = 1 << 20;
    /** How many wait buckets a chunk has; a power of two. */
    static final int WAIT_BUCKETS = 64;
    static final long BUCKET_BYTES = 64;
    static final long HEADER = WAIT_BUCKETS * BUCKET_BYTES;
    /** An int32 in bucket 0 that is no bucket's: how many times the file has been mapped. */
    static final long MAPPINGS = 16;
    private static final String PREFIX = "chunk-";

    private static final ReentrantLock LOCK = new ReentrantLock();
    /** Non-null while enabled: where the chunks are made. */
    private static volatile Path directory;
    // Guarded by LOCK.
    private static int users;
    private static Chunk current;
    private static long next;
    private static int made;
    private static boolean hooked;
    private static final List<Chunk> OWN = new ArrayList<>();
    /** When making a chunk failed last (0: it did not), and why; another try waits RETRY_NANOS. */
    private static long failedAt;
    private static volatile String fallback;
    private static final long RETRY_NANOS = 100_000_000L;
    /** Every chunk mapped in this process (made or attached), by base address. */
    private static final ConcurrentSkipListMap<Long, Chunk> MAPPED = new ConcurrentSkipListMap<>();
    /** Chunks another process made, by file. */
    private static final Map<Path, Chunk> ATTACHED = new ConcurrentHashMap<>();

    private SharedFiles() {}

    /** One mapped chunk file. */
    static final class Chunk {
        final Path file;
        final MemorySegment memory;
        final long base;
        /**
         * This mapping's number among all mappings of the file, in every process, from 1; 0 if there
         * were more than {@link ProcessWaits#ORIGINS} (then its wakes cannot be told from others').
         */
        final int origin;
        /** Guarded by LOCK: values (and views attached) in this mapping that are still reachable. */
        int live;
        /** Guarded by LOCK: no longer registered (reclaimed, or the files were disabled). */
        boolean retired;

        Chunk(Path file, MemorySegment memory) {
            this.file = file;
            this.memory = memory;
            this.base = memory.address();
            int n = Memory.getAndAddInt(memory, MAPPINGS, 1) + 1;
            this.origin = n > 0 && n < ProcessWaits.ORIGINS ? n : 0;
        }

        boolean contains(long address) {
            return address >= base && address < base + memory.byteSize();
        }

        /** The offset in this chunk of the wait bucket of the word at {@code address}. */
        long bucket(long address) {
            long h = ((address - base) >>> 2) * 0x9E3779B97F4A7C15L;
            return ((h >>> 58) & (WAIT_BUCKETS - 1)) * BUCKET_BYTES;
        }
    }

    /**
     * Where a value lives.
     *
     * @param file its chunk's file
     * @param offset its offset there
     */
    public record Location(Path file, long offset) {}

    /**
     * Starts allocating shared values from files (or counts one more user). Linux only.
     *
     * @return the private directory of the chunk files
     * @throws IOException if the directory cannot be made
     * @throws UnsupportedOperationException if this platform has no futex for waits across processes,
     *     or this module has no native access to call it ({@link #unavailable()} says which)
     */
    public static Path enable() throws IOException {
        if (!NativeFutex.AVAILABLE) {
            throw new UnsupportedOperationException(NativeFutex.UNAVAILABLE);
        }
        LOCK.lock();
        try {
            if (users == 0) {
                directory = privateDirectory();
                if (!hooked) {
                    hooked = true;
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        Path left = directory;
                        if (left != null) {
                            deleteDirectory(left);
                        }
                    }, "moroutine-shared-files-cleanup"));
                }
            }
            users++;
            return directory;
        } finally {
            LOCK.unlock();
        }
    }

    /** One user less; the last one deletes the files and stops allocating from them. */
    public static void disable() {
        LOCK.lock();
        try {
            if (users == 0 || --users > 0) {
                return;
            }
            Path gone = directory;
            directory = null;
            current = null;
            for (Chunk chunk : OWN) {
                chunk.retired = true;
                MAPPED.remove(chunk.base, chunk);
                ProcessWaits.forget(chunk);
            }
            failedAt = 0;
            fallback = null;
            OWN.clear();
            deleteDirectory(gone);
        } finally {
            LOCK.unlock();
        }
    }

    /**
     * Why shared values cannot cross to other processes in this JVM, whether or not a pool is open.
     *
     * @return the reason (the platform, or the missing {@code --enable-native-access}), or null if they can
     */
    public static String unavailable() {
        return NativeFutex.UNAVAILABLE;
    }

    /**
     * The directory of the chunk files.
     *
     * @return it while enabled, else null
     */
    public static Path directory() {
        return directory;
    }

    private static Path privateDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return Files.createTempDirectory(base, "moroutine-shared-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /**
     * Memory for one value from the chunk files, or null when they are not enabled or a chunk could
     * not be made (the caller then allocates as usual; {@link #fallback()} says why).
     *
     * <p>The value's segment is its own, with an automatic arena of its own whose cleanup (run once
     * the value and every view or slice of it are unreachable) counts it out of its chunk; the
     * chunk keeps the mapping alive meanwhile. A chunk with no value left that is not the one being
     * allocated from is reclaimed: its file deleted, unregistered, and its mapping returned by the
     * garbage collector. A value passed to a worker JVM stays reachable from its task (the
     * invocation's arguments) until the task settles, so its file is there when the worker maps it.
     */
    static MemorySegment allocate(long size, long alignment) {
        if (directory == null) {
            return null;
        }
        Chunk chunk;
        long at;
        LOCK.lock();
        try {
            if (directory == null) {
                return null;
            }
            at = current == null ? -1 : Layouts.alignUp(next, alignment);
            if (current == null || at + size > current.memory.byteSize()) {
                if (failedAt != 0 && System.nanoTime() - failedAt < RETRY_NANOS) {
                    return null;
                }
                long length = Math.max(CHUNK_SIZE, Layouts.alignUp(HEADER + Layouts.alignUp(size, alignment) + alignment, 4096));
                Chunk fresh;
                try {
                    fresh = create(directory.resolve(PREFIX + made++), length);
                } catch (IOException e) {
                    failedAt = System.nanoTime();
                    fallback = "could not make a file of shared memory in " + directory + " (" + e.getMessage()
                            + "), so values allocated since then live in this JVM only";
                    return null;
                }
                failedAt = 0;
                Chunk full = current;
                current = fresh;
                if (full != null && full.live == 0) {
                    reclaim(full);
                }
                at = Layouts.alignUp(HEADER, alignment);
            }
            next = at + size;
            chunk = current;
            chunk.live++;
        } finally {
            LOCK.unlock();
        }
        return counted(chunk, chunk.memory.asSlice(at, size));
    }

    /** The slice with an arena of its own, whose cleanup counts it out of its chunk. */
    @SuppressWarnings("restricted") // only while enabled, which needs native access (see NativeFutex)
    private static MemorySegment counted(Chunk chunk, MemorySegment slice) {
        return slice.reinterpret(Arena.ofAuto(), gone -> release(chunk));
    }

    private static void release(Chunk chunk) {
        LOCK.lock();
        try {
            if (--chunk.live == 0 && chunk != current) {
                reclaim(chunk);
            }
        } finally {
            LOCK.unlock();
        }
    }

    /** Under LOCK: a chunk no value uses any more goes (a worker JVM that maps it keeps its mapping). */
    private static void reclaim(Chunk chunk) {
        if (chunk.retired) {
            return;
        }
        chunk.retired = true;
        MAPPED.remove(chunk.base, chunk);
        if (!OWN.remove(chunk)) {
            ATTACHED.remove(chunk.file, chunk);
            ProcessWaits.forget(chunk);
            return;
        }
        ProcessWaits.forget(chunk);
        try {
            Files.deleteIfExists(chunk.file);
        } catch (IOException ignored) {
            // the directory is being removed: the file goes with it
        }
    }

    /**
     * Why values allocated while a pool is open may live in this JVM only: the last failure to make a
     * chunk file (/dev/shm full, say), or null.
     *
     * @return the reason, or null
     */
    public static String fallback() {
        return fallback;
    }

    private static Chunk create(Path file, long length) throws IOException {
        FileAttribute<?> ownerOnly = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
        Files.createFile(file, ownerOnly);
        Chunk chunk;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            reserve(channel, length);
            chunk = new Chunk(file, channel.map(FileChannel.MapMode.READ_WRITE, 0, length, Arena.ofAuto()));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        OWN.add(chunk);
        MAPPED.put(chunk.base, chunk);
        return chunk;
    }

    /**
     * Writes the file's pages, so that a full file system (a container's 64 MiB /dev/shm, say) fails
     * here, with its reason, rather than as a SIGBUS (an {@link InternalError}) at a later store to
     * a page of a sparse file.
     */
    private static void reserve(FileChannel channel, long length) throws IOException {
        java.nio.ByteBuffer zeros = ZEROS.duplicate();
        for (long at = 0; at < length; ) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), length - at));
            at += channel.write(zeros, at);
        }
    }

    private static final java.nio.ByteBuffer ZEROS = java.nio.ByteBuffer.allocateDirect(64 << 10).asReadOnlyBuffer();

    /**
     * Where a value that another process can map lives.
     *
     * @param segment the value's segment
     * @param offset the value's offset there
     * @return its file and offset, or null if its memory is not in a chunk file of this process
     *     (allocated before {@link #enable}, from an arena, or after the last {@link #disable})
     */
    public static Location locate(MemorySegment segment, long offset) {
        Chunk chunk = chunkOf(segment, offset);
        return chunk == null ? null : new Location(chunk.file, segment.address() + offset - chunk.base);
    }

    /** The registered chunk that holds the word, or null. */
    static Chunk chunkOf(MemorySegment segment, long offset) {
        if (!segment.isNative() || MAPPED.isEmpty()) {
            return null;
        }
        long address = segment.address() + offset;
        Map.Entry<Long, Chunk> floor = MAPPED.floorEntry(address);
        return floor != null && floor.getValue().contains(address) ? floor.getValue() : null;
    }

    /**
     * Maps a chunk file another process made (once per file), so that values in it can be viewed
     * and waited on across processes.
     *
     * @param file the chunk file
     * @return its memory
     * @throws UncheckedIOException if it cannot be mapped
     */
    public static MemorySegment attach(Path file) {
        return ATTACHED.computeIfAbsent(file, f -> {
            try (FileChannel channel = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                Chunk chunk = new Chunk(f, channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), Arena.ofAuto()));
                MAPPED.put(chunk.base, chunk);
                return chunk;
            } catch (IOException e) {
                throw new UncheckedIOException("could not map shared memory file " + f + ": " + e, e);
            }
        }).memory;
    }

    /**
     * Maps a chunk file another process made (once per file while a value of it is reachable here),
     * for one value in it: the value's segment has an arena of its own, as {@link #allocate} gives,
     * so that once no value of the file is reachable here the mapping is unregistered and returned,
     * and the file's memory goes when its last process lets go of it.
     *
     * @param file the chunk file
     * @param offset the value's offset there
     * @param size the value's size
     * @return the value's memory
     * @throws UncheckedIOException if the file cannot be mapped
     */
    public static MemorySegment attach(Path file, long offset, long size) {
        LOCK.lock();
        try {
            Chunk chunk = ATTACHED.get(file);
            if (chunk == null || chunk.retired) {
                attach(file);
                chunk = ATTACHED.get(file);
            }
            MemorySegment slice = chunk.memory.asSlice(offset, size);
            if (!NativeFutex.AVAILABLE) {
                return slice; // never unmapped: without native access a segment cannot have an arena of its own
            }
            chunk.live++;
            return counted(chunk, slice);
        } finally {
            LOCK.unlock();
        }
    }

    /**
     * Deletes a directory of chunk files and the files, quietly: it may be gone already.
     *
     * @param dir the directory
     */
    public static void deleteDirectory(Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (IOException gone) {
            // already removed, or being removed by another process: nothing to do
        }
    }
}
