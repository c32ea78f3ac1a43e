package dev.moroutine.isolated.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * How a side that sleeps is woken: one Unix-domain socket per worker JVM, whose bytes mean only
 * "look at the rings". Data never goes through it: it carries one byte per sleep at most (two when
 * the parent sleeps on a full request ring; see {@link SharedFile}), and only after a side has spun
 * for a while and found nothing.
 *
 * <p>Why a socket rather than a futex on the shared file: the parent's pump sleeps in a
 * {@link java.nio.channels.Selector}, which the other process wakes by writing to the socket and a
 * thread of its own process with {@link java.nio.channels.Selector#wakeup()}; the child's reader
 * sleeps the same way. Both are portable (Linux, macOS, Windows), need no native access, and a sleeper
 * costs no CPU. The socket also ends when the other process dies, whatever killed it, which wakes
 * the sleeper at once. A futex (a native call through FFM) would save the system call of the
 * selector but cannot wait for a local wake-up and a process at once, and exists only on Linux.
 */
final class Doorbell {

    private Doorbell() {}

    /**
     * Rings: one byte. {@link SocketChannel}s may be written by several threads.
     *
     * @return {@code false} if the socket has ended: the other side is gone or going
     */
    static boolean ring(SocketChannel socket) {
        try {
            socket.write(ByteBuffer.wrap(new byte[] {1}));
            return true;
        } catch (IOException ended) {
            return false;
        }
    }

    /**
     * Reads the rings that are waiting; does not block on a non-blocking socket.
     *
     * @return {@code false} if the socket has ended (closed, or reset by a process that died): the
     *     other side is gone or going
     */
    static boolean drain(SocketChannel socket, ByteBuffer scratch) {
        try {
            for (;;) {
                scratch.clear();
                int read = socket.read(scratch);
                if (read < 0) {
                    return false;
                }
                if (read < scratch.capacity()) {
                    return true;
                }
            }
        } catch (IOException ended) {
            return false;
        }
    }
}
