package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.streaming;

import dev.moroutine.Mo1;
import dev.moroutine.stream.StreamMo1;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/** Moroutines that pass and return ByteBuffers, which Fory decodes as views of the bytes it reads; loaded in the worker JVMs too. */
public final class BufferJobs {

    private BufferJobs() {}

    /** 100 bytes, each {@code fill}. */
    public static ByteBuffer filledWith(int fill) {
        byte[] bytes = new byte[100];
        Arrays.fill(bytes, (byte) fill);
        return ByteBuffer.wrap(bytes);
    }

    /**
     * The first buffer of {@code buffers} whose bytes are not all its position in the list, or "all n kept".
     */
    public static String check(List<ByteBuffer> buffers) {
        for (int i = 0; i < buffers.size(); i++) {
            ByteBuffer buffer = buffers.get(i).duplicate();
            while (buffer.hasRemaining()) {
                byte b = buffer.get();
                if (b != (byte) i) {
                    return "buffer " + i + " holds " + b;
                }
            }
        }
        return "all " + buffers.size() + " kept";
    }

    public static final Mo1<Integer, ByteBuffer> filled = mo(BufferJobs::filledWith);

    /** Buffer i is filled with i. */
    public static final StreamMo1<Integer, ByteBuffer> numbered = streaming(n -> IntStream.range(0, n).mapToObj(BufferJobs::filledWith));

    /** Holds every buffer until the stream ends, then checks them all. */
    public static final Mo1<Iterable<ByteBuffer>, String> checkAll = mo(buffers -> {
        List<ByteBuffer> held = new ArrayList<>();
        buffers.forEach(held::add);
        return check(held);
    });
}
