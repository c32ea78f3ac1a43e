package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.Pool;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fory decodes a ByteBuffer as a view of the bytes it reads, so no message may be decoded in bytes
 * that the next one overwrites: each decoded buffer keeps its contents, in both directions.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ByteBufferReuseTest {

    /** Batches of 256 at most (the pool's high-water mark), so several cross. */
    private static final int BUFFERS = 3000;

    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(1);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void aByteBufferResultKeepsItsBytesAfterTheNextAnswer() {
        ByteBuffer first = pool.run(BufferJobs.filled.call(0));
        pool.run(BufferJobs.filled.call(1)); // the next answer, as long
        assertEquals("all 1 kept", BufferJobs.check(List.of(first)));
    }

    @Test
    void streamedByteBuffersKeepTheirBytesAfterTheNextBatch() {
        List<ByteBuffer> items = pool.run(BufferJobs.numbered.call(BUFFERS)).toList();
        assertEquals("all " + BUFFERS + " kept", BufferJobs.check(items));
    }

    @Test
    void byteBuffersStreamedToATaskKeepTheirBytesAfterTheNextBatch() {
        assertEquals("all " + BUFFERS + " kept", pool.run(BufferJobs.checkAll.call(BufferJobs.numbered.call(BUFFERS))));
    }
}
