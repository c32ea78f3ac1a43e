package dev.moroutine.internal.shared;

import dev.moroutine.shared.Str;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** The implementation of {@link Str}: a length word and up to {@code maxBytes} UTF-8 bytes (see {@link Layouts}). */
public final class StrCell extends AbstractCell implements Str {

    private final int maxBytes;

    StrCell(Desc<?> desc, MemorySegment segment, long offset, int maxBytes) {
        super(desc, segment, offset);
        this.maxBytes = maxBytes;
    }

    @Override
    public int maxBytes() {
        return maxBytes;
    }

    @Override
    public String load() {
        int length = Memory.getIntOpaque(segment, offset + Layouts.STRING_LENGTH);
        if (length < 0 || length > maxBytes) {
            throw new IllegalStateException(desc + " at offset " + offset + " holds a length of " + length
                    + ", outside 0.." + maxBytes + ": the memory was written by something else");
        }
        byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + Layouts.STRING_BYTES, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public void store(String value) {
        write(encode(value));
    }

    /** The UTF-8 bytes of {@code value}, refused if they do not fit or the string is not valid UTF-16. */
    private byte[] encode(String value) {
        Objects.requireNonNull(value, "value");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("string has an unpaired surrogate \\u" + Integer.toHexString(c)
                        + " at index " + i + ", which UTF-8 cannot encode");
            }
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > maxBytes) {
            throw new IllegalArgumentException("string of " + bytes.length + " UTF-8 bytes is over the maximum of "
                    + maxBytes + " bytes of " + desc + "; shorten it or declare a larger maximum");
        }
        return bytes;
    }

    private void write(byte[] bytes) {
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset + Layouts.STRING_BYTES, bytes.length);
        Memory.putIntOpaque(segment, offset + Layouts.STRING_LENGTH, bytes.length);
    }

    @Override
    public Object loadValue() {
        return load();
    }

    @Override
    public void checkValue(Object value) {
        encode(Values.instance(value, String.class, desc));
    }

    @Override
    public void storeValue(Object value) {
        store((String) value);
    }
}
