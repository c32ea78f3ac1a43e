package dev.moroutine.isolated.internal;

import dev.moroutine.internal.shared.Desc;
import dev.moroutine.internal.shared.Descs;
import dev.moroutine.internal.shared.SharedFiles;
import dev.moroutine.shared.SharedValue;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.apache.fory.Fory;
import org.apache.fory.memory.MemoryBuffer;

/**
 * A shared value as it crosses to a worker JVM: not its contents but where it lives, so that both
 * JVMs use the same memory. While an isolated pool is open, {@code shared(…)} allocates from chunk
 * files ({@link SharedFiles}); a value is encoded as its chunk's file, its offset there and its
 * descriptor (as text, {@link Descs#spec}), and the worker JVM maps the file (once) and views the
 * value at that offset. Waits and wakes on it then reach the other JVMs through the kernel's futex
 * (see {@code ProcessWaits} in core).
 *
 * <p>The file stays while the value is reachable in the parent: its task's invocation holds it
 * until the task settles, so the worker JVM maps the file before the parent can reclaim it. The
 * worker's view has an arena of its own ({@link SharedFiles#attach(Path, long, long)}): once its
 * views are unreachable the worker unmaps the file too, and the file's memory is returned.
 *
 * <pre>
 * file        Fory string, the chunk file's absolute path
 * offset      int64
 * descriptor  Fory string
 * </pre>
 */
final class SharedCrossing {

    private SharedCrossing() {}

    static void write(Fory encoder, MemoryBuffer out, SharedValue value, String argument, String destination) {
        MemorySegment segment = value.segment();
        long offset = value.offset();
        SharedFiles.Location location = SharedFiles.locate(segment, offset);
        if (location == null) {
            String unavailable = SharedFiles.unavailable();
            String fallback = SharedFiles.fallback();
            throw new IllegalArgumentException(argument + " is " + Codec.sharedType(value.getClass()) + " (" + value
                    + ") that lives in this JVM only, so it cannot cross to isolated worker " + destination + ": "
                    + (unavailable != null ? unavailable
                    : "allocate it with shared(…) while an isolated pool is open (then it lives in a file the worker JVMs"
                    + " map); values made before the first isolated pool opened, after the last one closed, from an Arena,"
                    + " or by view(…) stay in this JVM" + (fallback != null ? "; and " + fallback : "")));
        }
        encoder.serialize(out, location.file().toString());
        out.writeInt64(location.offset());
        encoder.serialize(out, Descs.spec(value.descriptor()));
    }

    static SharedValue read(Fory decoder, MemoryBuffer in) {
        Path file = Path.of((String) decoder.deserialize(in));
        long offset = in.readInt64();
        String spec = (String) decoder.deserialize(in);
        Desc<?> desc = Descs.parse(spec, ClassLoader.getSystemClassLoader());
        return (SharedValue) desc.view(SharedFiles.attach(file, offset, desc.layout().byteSize()), 0);
    }
}
