package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Mo3;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Moroutines for {@link BatchHeadOfLineTest}; loaded in the worker JVMs too, so nothing here touches JUnit. */
public final class BatchJobs {

    private BatchJobs() {}

    /**
     * An argument whose decoding in a worker JVM (Fory builds a record through its canonical
     * constructor) says so on the test's port, naming the thread that decodes it, and then waits
     * until the test writes a byte: a decoding that takes as long as the test wants.
     */
    public record HeldDecode(int port, long testPid) {
        public HeldDecode {
            if (ProcessHandle.current().pid() != testPid) {
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port); InputStream in = socket.getInputStream()) {
                    socket.getOutputStream().write((Thread.currentThread().getName() + "\n").getBytes(StandardCharsets.UTF_8));
                    socket.getOutputStream().flush();
                    in.read();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    public static final Mo1<HeldDecode, Integer> held = mo(HeldDecode::port);

    /** As {@link Jobs#block}, with a large argument beside, which takes the worker JVM a while to decode. */
    public static final Mo2<Integer, String, Integer> blockPadded = mo((port, padding) -> {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port); InputStream in = socket.getInputStream()) {
            socket.getOutputStream().write(1);
            in.read();
        }
        return port;
    });

    /** Says it started on {@code port}, waits for the test's byte, then reads its stream argument whole: the port if it held one item. */
    public static final Mo3<Integer, String, Iterable<HeldDecode>, Integer> startThenRead = mo((port, padding, items) -> {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port); InputStream in = socket.getInputStream()) {
            socket.getOutputStream().write(1);
            in.read();
        }
        int n = 0;
        for (HeldDecode item : items) {
            n++;
        }
        return n == 1 ? port : -n;
    });
}
