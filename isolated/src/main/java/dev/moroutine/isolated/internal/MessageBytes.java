package dev.moroutine.isolated.internal;

import org.agrona.DirectBuffer;
import org.apache.fory.memory.MemoryBuffer;

/**
 * A place to decode messages from a ring that is kept from one message to the next: each message's
 * bytes are copied out of the mapped file into one array (grown when a message needs more), and one
 * Fory buffer reads them. So decoding a task or an answer allocates no array or buffer of its own;
 * the decoded objects hold none of these bytes (Fory copies what it reads).
 *
 * <p>Not thread-safe: its owner uses it from one thread at a time (whoever reads the ring, which
 * its lock or flag orders), and decodes each message before it copies the next.
 */
final class MessageBytes {

    private byte[] bytes;
    private final MemoryBuffer view;

    /**
     * @param initialLength the array's length until a message needs more
     */
    MessageBytes(int initialLength) {
        bytes = new byte[initialLength];
        view = MemoryBuffer.fromByteArray(bytes);
    }

    /**
     * Copies one message's bytes.
     *
     * @param from the ring's buffer
     * @param index where the bytes start
     * @param length how many there are
     * @return a buffer reading them from their start, valid until the next call
     */
    MemoryBuffer copy(DirectBuffer from, int index, int length) {
        if (bytes.length < length) {
            bytes = new byte[Math.max(length, 2 * bytes.length)];
        }
        from.getBytes(index, bytes, 0, length);
        view.pointTo(bytes, 0, length);
        view.readerIndex(0);
        return view;
    }
}
