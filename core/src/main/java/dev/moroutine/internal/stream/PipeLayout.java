package dev.moroutine.internal.stream;

/**
 * Where a {@link Pipe}'s fields lie, so that its producer and its consumer, running on two cores,
 * do not write to one cache line: each side's own fields (its count, which it writes at every
 * item) are followed by {@value #PAD_BYTES} bytes of padding (two 64-byte lines, as an
 * adjacent-line prefetcher fetches them in pairs). HotSpot lays a superclass's fields before its
 * subclass's, so the chain of classes below fixes the order: the producer's fields (right after the
 * object header, which nobody writes), padding, the consumer's fields, padding, then {@link Pipe}'s
 * own fields, which both sides read and seldom write. Were the producer's count and the consumer's
 * on one line, it would move between the cores at every item, however seldom each side read the
 * other's count. The padding is of bytes, as JCTools pads its queues: HotSpot fills a gap that a
 * superclass's fields leave (after a boolean, say) with the next class's fields, so a padding of
 * longs would leave that gap to the pipe's own fields. ({@code @Contended} is closed to libraries.)
 * The fields are package-private only so that {@link Pipe} can use them: nothing else does.
 */
final class PipeLayout {

    /** The padding on each side of a hot group of fields. */
    static final int PAD_BYTES = 128;

    private PipeLayout() {}

    /** The producer's own: only the producer writes them. */
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
        private byte p000, p001, p002, p003, p004, p005, p006, p007, p008, p009, p010, p011, p012, p013, p014, p015;
        private byte p016, p017, p018, p019, p020, p021, p022, p023, p024, p025, p026, p027, p028, p029, p030, p031;
        private byte p032, p033, p034, p035, p036, p037, p038, p039, p040, p041, p042, p043, p044, p045, p046, p047;
        private byte p048, p049, p050, p051, p052, p053, p054, p055, p056, p057, p058, p059, p060, p061, p062, p063;
        private byte p064, p065, p066, p067, p068, p069, p070, p071, p072, p073, p074, p075, p076, p077, p078, p079;
        private byte p080, p081, p082, p083, p084, p085, p086, p087, p088, p089, p090, p091, p092, p093, p094, p095;
        private byte p096, p097, p098, p099, p100, p101, p102, p103, p104, p105, p106, p107, p108, p109, p110, p111;
        private byte p112, p113, p114, p115, p116, p117, p118, p119, p120, p121, p122, p123, p124, p125, p126, p127;
    }

    /** The consumer's own: only the consumer writes them (and {@code acknowledge}, for a forwarding pipe's count). */
    abstract static class ConsumerFields extends ProducerPadding {
        /** Consumer's count of taken items, published to the producer. */
        volatile long consumed;
        long consumedLocal;
        /** The consumer has ended: it takes nothing more. Read and written by the consumer only. */
        boolean ended;
        /** How many more of the consumer's waits park without waiting for a batch (see Pipe's class comment). */
        int waitsWithoutBatch;
    }

    /** Keeps the consumer's fields and the shared ones apart. */
    @SuppressWarnings("unused") // padding: never read
    abstract static class ConsumerPadding extends ConsumerFields {
        private byte q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015;
        private byte q016, q017, q018, q019, q020, q021, q022, q023, q024, q025, q026, q027, q028, q029, q030, q031;
        private byte q032, q033, q034, q035, q036, q037, q038, q039, q040, q041, q042, q043, q044, q045, q046, q047;
        private byte q048, q049, q050, q051, q052, q053, q054, q055, q056, q057, q058, q059, q060, q061, q062, q063;
        private byte q064, q065, q066, q067, q068, q069, q070, q071, q072, q073, q074, q075, q076, q077, q078, q079;
        private byte q080, q081, q082, q083, q084, q085, q086, q087, q088, q089, q090, q091, q092, q093, q094, q095;
        private byte q096, q097, q098, q099, q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111;
        private byte q112, q113, q114, q115, q116, q117, q118, q119, q120, q121, q122, q123, q124, q125, q126, q127;
    }
}
