package dev.moroutine.isolated.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a dead JVM left in its reply ring is read whole, even past a message one of its threads had
 * claimed and never committed. Regression: such a claim (a stream's items, mid-copy when the JVM
 * halted) hid the stream's end of run claimed after it, so the parent took the task after the stream,
 * which had killed the JVM, for one never started and ran it again.
 */
@Timeout(30)
class ReadAllLeftTest {

    private static final int CAPACITY = 4096;

    private static RingBuffer ring() {
        return new ManyToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    /** Writes a message holding {@code value} in {@code length} bytes, committed or left claimed as by a thread that died. */
    private static void write(RingBuffer ring, int value, int length, boolean committed) {
        int at = ring.tryClaim(1, length);
        assertTrue(at >= 0, "room in the ring");
        ring.buffer().putInt(at, value);
        if (committed) {
            ring.commit(at);
        }
    }

    private static List<Integer> readAllLeft(RingBuffer ring) {
        List<Integer> read = new ArrayList<>();
        SharedFile.readAllLeft(ring, (type, buffer, index, length) -> read.add(buffer.getInt(index)));
        return read;
    }

    @Test
    void theMessagesCommittedAfterAClaimNeverCommittedAreRead() {
        RingBuffer ring = ring();
        write(ring, 1, 64, true);
        write(ring, 2, 512, false); // a stream's items, mid-copy
        write(ring, 3, 8, true); // the end of the stream's run
        write(ring, 4, 8, false);
        write(ring, 5, 8, true);
        assertEquals(List.of(1, 3, 5), readAllLeft(ring));
        assertEquals(ring.producerPosition(), ring.consumerPosition(), "nothing left");
    }

    @Test
    void aClaimWhoseLengthWasNeverWrittenIsSkippedToo() {
        RingBuffer ring = ring();
        int at = ring.tryClaim(1, 128);
        ring.buffer().putInt(at - RecordDescriptor.HEADER_LENGTH, 0); // died after taking the space, before marking it
        write(ring, 7, 8, true);
        assertEquals(List.of(7), readAllLeft(ring));
    }

    @Test
    void aClaimWithNothingAfterItEndsTheReading() {
        RingBuffer ring = ring();
        write(ring, 1, 8, true);
        write(ring, 2, 8, false);
        assertEquals(List.of(1), readAllLeft(ring));
        assertEquals(List.of(), readAllLeft(ring));
    }

    /**
     * Rounds of messages of random sizes, some left uncommitted, the ring wrapping many times: each
     * round's committed messages are read, in order, and nothing else (a claim that ends a round is
     * skipped in the next, once messages follow it).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 5, 8, 13, 21, 34})
    void everyCommittedMessageIsReadInOrderAcrossWraps(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        RingBuffer ring = ring();
        int value = 0;
        for (int round = 0; round < 2_000; round++) {
            List<Integer> committed = new ArrayList<>();
            boolean lastCommitted = true;
            int room = CAPACITY / 2;
            for (int messages = random.nextInt(1, 8); messages > 0; messages--) {
                int length = random.nextInt(Integer.BYTES, 200);
                room -= length + RecordDescriptor.HEADER_LENGTH + RecordDescriptor.ALIGNMENT;
                if (room < 0) {
                    break;
                }
                boolean commit = random.nextInt(4) != 0;
                write(ring, ++value, length, commit);
                lastCommitted = commit;
                if (commit) {
                    committed.add(value);
                }
            }
            assertEquals(committed, readAllLeft(ring), "round " + round);
            if (lastCommitted) { // else the claim stays, with nothing after it, until the next round's messages
                assertEquals(ring.producerPosition(), ring.consumerPosition(), "round " + round + ": nothing left");
            }
        }
    }
}
