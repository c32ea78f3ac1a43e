package dev.moroutine.isolated.internal;

import org.agrona.DirectBuffer;
import org.apache.fory.memory.MemoryBuffer;

/**
 * Where a ring's reader decodes each message: a copy of the message's bytes out of the mapped file
 * (which the writer reuses once the message is read), read by one Fory buffer that is kept from one
 * message to the next, so a task, an answer or a batch of items allocates no buffer of its own.
 * Each message gets an array of its own: a decoded value may keep the bytes it was read from (Fory
 * reads a {@link java.nio.ByteBuffer} as a view of them, not a copy).
 *
 * <p>Not thread-safe: its owner uses it from one thread at a time (whoever reads the ring, which
 * its lock or flag orders), and decodes each message before it copies the next.
 */
final class MessageBytes {

    private final MemoryBuffer view = MemoryBuffer.fromByteArray(new byte[0]);

    /**
     * Copies one message's bytes.
     *
     * @param from the ring's buffer
     * @param index where the bytes start
     * @param length how many there are
     * @return a buffer reading them from their start, valid until the next call
     */
    MemoryBuffer copy(DirectBuffer from, int index, int length) {
        byte[] bytes = new byte[length];
        from.getBytes(index, bytes, 0, length);
        view.pointTo(bytes, 0, length);
        view.readerIndex(0);
        return view;
    }
}
