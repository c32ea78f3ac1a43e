package dev.moroutine.isolated.internal;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import org.agrona.IoUtil;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The memory a parent and one worker JVM share: one file, mapped by both, made in a private
 * directory (mode 0700, the file 0600) that the parent deletes as soon as the child has mapped it,
 * so nothing stays on disk while they run or after they die. On Linux the directory is made in
 * {@code /dev/shm}, which is memory, so the pages are never written back to a disk.
 *
 * <pre>
 *    0 ┌────────────────────────────────────┐
 *      │ magic "MORO" (int) │ version (int) │  checked by the child
 *   64 │ parentParked (int)                 │  1 while nobody in the parent watches the replies
 *  128 │ childParked (int)                  │  1 while nobody in the child watches the request ring
 *  192 │ roomWanted (int)                   │  1 while the parent's pump sleeps on a full request ring
 *  256 ├────────────────────────────────────┤
 *      │ requests: OneToOneRingBuffer       │  parent (one writer at a time) ─► child (one reader at a time)
 *      │   RING_CAPACITY + trailer          │
 *      ├────────────────────────────────────┤
 *      │ replies: ManyToOneRingBuffer       │  child's worker thread (and reader) ─► parent's pump (or a caller)
 *      │   RING_CAPACITY + trailer          │
 *      └────────────────────────────────────┘
 * </pre>
 * The two parked words are a cache line apart (and from the header), because each side writes its
 * own and reads the other's. The rings are Agrona's, whose descriptors keep their own counters a
 * cache line apart.
 *
 * <p>A side that finds nothing to read spins briefly, then sets its parked word, fences, looks
 * once more and sleeps on its doorbell (see {@link Doorbell}). A writer fences after its write, then
 * takes the reader's parked word from 1 to 0 and rings only if it did: both sides write, fence and
 * read, so either the sleeper sees the message or the writer sees it must ring, and one sleep costs
 * at most one ring. In the child, two threads watch the request ring in turn (see {@link Child}),
 * in the parent the pump and the callers waiting for answers watch the reply ring (see
 * {@code IsolatedWorker}): the last one to stop sets the word.
 *
 * <p>A parent that sleeps because the request ring is full sets {@code roomWanted} as well; the
 * child, once it has emptied half the ring, takes it from 1 to 0 and rings. That
 * hand-shake has no fence on the child's side (it would cost every request): a ring it loses to
 * the race costs the parent the bounded wait it sleeps for then.
 */
final class SharedFile implements AutoCloseable {

    private static final int MAGIC = 0x4F524F4D; // "MORO" in little-endian order
    private static final int VERSION = 1;
    private static final int MAGIC_OFFSET = 0;
    private static final int VERSION_OFFSET = 4;
    private static final int PARENT_PARKED = 64;
    private static final int CHILD_PARKED = 128;
    private static final int ROOM_WANTED = 192;
    private static final int HEADER_LENGTH = 256;
    /** Each ring's capacity; one message may take up to an eighth of it (Agrona's limit). */
    static final int RING_CAPACITY = 1 << 20;
    private static final int RING_LENGTH = RING_CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
    private static final int FILE_LENGTH = HEADER_LENGTH + 2 * RING_LENGTH;

    /** Which side's parked word. */
    enum Side {
        PARENT(PARENT_PARKED), CHILD(CHILD_PARKED);

        private final int offset;

        Side(int offset) {
            this.offset = offset;
        }
    }

    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final RingBuffer requests;
    private final RingBuffer replies;

    private SharedFile(MappedByteBuffer mapped) {
        this.mapped = mapped;
        this.header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        this.requests = new OneToOneRingBuffer(new UnsafeBuffer(mapped, HEADER_LENGTH, RING_LENGTH));
        this.replies = new ManyToOneRingBuffer(new UnsafeBuffer(mapped, HEADER_LENGTH + RING_LENGTH, RING_LENGTH));
    }

    /**
     * Makes a private directory for one worker JVM's files.
     *
     * @return the directory, readable only by this user
     * @throws IOException if it cannot be made
     */
    static Path privateDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return posix(base)
                ? Files.createTempDirectory(base, "moroutine-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
                : Files.createTempDirectory(base, "moroutine-");
    }

    private static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /**
     * Creates and maps the file (the parent's side).
     *
     * @param file where, in a {@link #privateDirectory()}
     * @return the mapped file, its rings empty
     * @throws IOException if it cannot be made
     */
    static SharedFile create(Path file) throws IOException {
        FileAttribute<?>[] ownerOnly = posix(file.getParent())
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        Files.createFile(file, ownerOnly);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            SharedFile shared = new SharedFile(channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_LENGTH));
            shared.header.putInt(VERSION_OFFSET, VERSION);
            shared.header.putIntVolatile(MAGIC_OFFSET, MAGIC);
            return shared;
        }
    }

    /**
     * Maps a file the parent made (the child's side).
     *
     * @param file the file
     * @return the mapped file
     * @throws IOException if it cannot be mapped
     * @throws IllegalStateException if it is not a file of this version of the library
     */
    static SharedFile open(Path file) throws IOException {
        SharedFile shared;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            shared = new SharedFile(channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_LENGTH));
        }
        if (shared.header.getIntVolatile(MAGIC_OFFSET) != MAGIC || shared.header.getInt(VERSION_OFFSET) != VERSION) {
            shared.close();
            throw new IllegalStateException(file + " is not a moroutine worker file of version " + VERSION
                    + ": the parent and the worker JVM run different versions of moroutine-isolated");
        }
        return shared;
    }

    /**
     * The parent's requests to the child: one producer at a time (the parent's pump, or a dispatch
     * that writes its task itself, holding the worker's writing flag), one consumer at a time (the
     * child's reader, or its worker thread while it waits).
     */
    RingBuffer requests() {
        return requests;
    }

    /** The child's replies: produced by the child's worker thread and reader, consumed by the parent's pump or a caller in its stead. */
    RingBuffer replies() {
        return replies;
    }

    /**
     * Reads every message left in a ring that no thread writes any more (a dead JVM's). A writer
     * that died between claiming a message and committing it left a record at which Agrona's reader
     * stops, hiding every message claimed after it, committed or not: a task's answer, the end of a
     * stream's run. With no writer left, such a record is turned into padding
     * ({@link ManyToOneRingBuffer#unblock}), its message lost, and the reading goes on.
     */
    static void readAllLeft(RingBuffer ring, MessageHandler handler) {
        for (;;) {
            long at = ring.consumerPosition();
            ring.read(handler);
            if (ring.consumerPosition() == at && !ring.unblock()) {
                return; // empty, or only claims with nothing committed after them
            }
        }
    }

    /** The sleeper's half of the hand-shake: announces it will sleep; it must then look once more. */
    void park(Side side) {
        header.putIntVolatile(side.offset, 1);
    }

    /** The sleeper found work after {@link #park}: takes the announcement back; {@code false} if a waker already rang. */
    boolean unpark(Side side) {
        return header.compareAndSetInt(side.offset, 1, 0);
    }

    /** The sleeper woke: it is awake until it parks again. */
    void awake(Side side) {
        header.putIntVolatile(side.offset, 0);
    }

    /**
     * The writer's half of the hand-shake, after its write: whether it must ring that side's doorbell.
     *
     * @return {@code true} for exactly one writer per sleep
     */
    boolean mustRing(Side side) {
        VarHandle.fullFence(); // the write before, the parked word after: see the class comment
        return header.getIntVolatile(side.offset) == 1 && header.compareAndSetInt(side.offset, 1, 0);
    }

    /**
     * The parent's pump will sleep on a full request ring ({@code true}), or has woken ({@code false}).
     *
     * @param wanted whether the child should ring when it has read on
     */
    void wantRoom(boolean wanted) {
        header.putIntVolatile(ROOM_WANTED, wanted ? 1 : 0);
    }

    /**
     * The child, having read a request: whether it must ring the parent, which sleeps for
     * room that is there now (half the request ring, enough for a message of any size).
     *
     * @return {@code true} for at most one call per sleep
     */
    boolean mustRingForRoom() {
        return header.getIntVolatile(ROOM_WANTED) == 1 && requests.size() <= RING_CAPACITY / 2
                && header.compareAndSetInt(ROOM_WANTED, 1, 0);
    }

    /** Unmaps the file; nothing may touch the rings afterwards. */
    @Override
    public void close() {
        IoUtil.unmap(mapped);
    }
}
