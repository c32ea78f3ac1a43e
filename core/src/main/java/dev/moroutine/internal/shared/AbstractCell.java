package dev.moroutine.internal.shared;

import dev.moroutine.shared.Descriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/** The (segment, offset, descriptor) triple that is all a shared value is. */
abstract class AbstractCell implements Cell {

    final Desc<?> desc;
    final MemorySegment segment;
    final long offset;

    AbstractCell(Desc<?> desc, MemorySegment segment, long offset) {
        this.desc = desc;
        this.segment = segment;
        this.offset = offset;
    }

    public final MemorySegment segment() {
        return segment;
    }

    public final long offset() {
        return offset;
    }

    public final MemoryLayout layout() {
        return desc.layout();
    }

    public final Descriptor<?> descriptor() {
        return desc;
    }

    @Override
    public String toString() {
        return desc + "@0x" + Long.toHexString(segment.address() + offset);
    }

    static int requireCount(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be 0 or more, was " + count);
        }
        return count;
    }
}
