package dev.moroutine.internal.stream;

/**
 * Where a {@link Pipe}'s fields lie, so that its producer and its consumer, running on two cores,
 * do not write to one cache line: each side's hot fields (those it writes at every item) get
 * lines of their own, with {@value #PAD_BYTES} bytes of padding on each side (two 64-byte lines,
 * as an adjacent-line prefetcher fetches them in pairs). HotSpot lays a superclass's fields before
 * its subclass's, so the chain of classes below fixes the order: producer fields, padding,
 * consumer fields, padding, then {@link Pipe}'s own fields, which both sides read and seldom write.
 * Were the producer's count and the consumer's on one line, it would move between the cores at
 * every item, however seldom each side read the other's count. (JCTools pads its queues the same
 * way; {@code @Contended} is closed to libraries.) The fields are package-private only so that
 * {@link Pipe} can use them: nothing else does.
 */
final class PipeLayout {

    /** The padding on each side of a hot group of fields. */
    static final int PAD_BYTES = 128;

    private PipeLayout() {}

    /** Written by the producer at every item. */
    abstract static class ProducerFields {
        /** The one thread that may emit, claimed by the first emit. */
        Thread producer;
        /** Producer's count of emitted items; written by the producer only. */
        long emitted;
        /**
         * The producer's bound on its count, from the consumed count it read last: below it, an emit
         * has room without reading the consumer's count, whose line the consumer writes at every take.
         */
        long roomLimit;
    }

    /** Keeps the producer's fields and the consumer's apart. */
    @SuppressWarnings("unused") // padding: never read
    abstract static class ProducerPadding extends ProducerFields {
        private long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16;
    }

    /** Written by the consumer at every item. */
    abstract static class ConsumerFields extends ProducerPadding {
        /** Consumer's count of taken items, published to the producer. */
        volatile long consumed;
        long consumedLocal;
        /** The consumer has ended: it takes nothing more. Read and written by the consumer only. */
        boolean ended;
    }

    /** Keeps the consumer's fields and the shared ones apart. */
    @SuppressWarnings("unused") // padding: never read
    abstract static class ConsumerPadding extends ConsumerFields {
        private long q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15, q16;
    }
}
