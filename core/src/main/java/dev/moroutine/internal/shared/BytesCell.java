package dev.moroutine.internal.shared;

import dev.moroutine.shared.Bytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/** The implementation of {@link Bytes}: exactly {@code size} bytes, no header. */
public final class BytesCell extends AbstractCell implements Bytes {

    private final int size;

    BytesCell(Desc<?> desc, MemorySegment segment, long offset, int size) {
        super(desc, segment, offset);
        this.size = size;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public byte[] load() {
        byte[] bytes = new byte[size];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, bytes, 0, size);
        return bytes;
    }

    @Override
    public void store(byte[] value) {
        check(value);
        MemorySegment.copy(value, 0, segment, ValueLayout.JAVA_BYTE, offset, size);
    }

    private void check(byte[] value) {
        Objects.requireNonNull(value, "value");
        if (value.length != size) {
            throw new IllegalArgumentException(desc + " stores exactly " + size + " bytes, was given " + value.length);
        }
    }

    @Override
    public MemorySegment view() {
        return segment.asSlice(offset, size);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        check(Values.instance(value, byte[].class, desc));
    }

    @Override
    public void storeValue(Object value) {
        store((byte[]) value);
    }
}
