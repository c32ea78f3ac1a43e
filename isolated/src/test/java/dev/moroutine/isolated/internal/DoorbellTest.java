package dev.moroutine.isolated.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The doorbell says when the other side is gone instead of throwing: its pump must go on to replace it. */
@Timeout(30)
class DoorbellTest {

    /**
     * Regression: a pump that rang a JVM which had just died got "Broken pipe" and failed, with
     * every task of its worker, instead of replacing the JVM.
     */
    @Test
    void ringingASocketWhosePeerIsGoneSaysSo(@TempDir Path directory) throws Exception {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(directory.resolve("bell"));
        try (ServerSocketChannel listening = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listening.bind(address);
            try (SocketChannel parent = SocketChannel.open(address)) {
                try (SocketChannel child = listening.accept()) {
                    assertTrue(Doorbell.ring(parent));
                    child.configureBlocking(false);
                    assertTrue(Doorbell.drain(child, ByteBuffer.allocate(8)), "rung, and still there");
                }
                boolean rang = true;
                for (int i = 0; i < 3 && rang; i++) { // the first write after the close may still be buffered
                    rang = Doorbell.ring(parent);
                }
                assertFalse(rang, "the other side is gone");
                parent.configureBlocking(false);
                assertFalse(Doorbell.drain(parent, ByteBuffer.allocate(8)), "ended");
            }
        }
    }
}
