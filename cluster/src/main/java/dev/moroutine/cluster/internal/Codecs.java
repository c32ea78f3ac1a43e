package dev.moroutine.cluster.internal;

import dev.moroutine.isolated.internal.Codec;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One {@link Codec} per list of registered classes in this JVM: building one takes a few hundred milliseconds, and it is thread-safe. */
final class Codecs {

    private static final Map<List<Class<?>>, Codec> MADE = new ConcurrentHashMap<>();

    private Codecs() {}

    static Codec of(List<Class<?>> types) {
        return MADE.computeIfAbsent(List.copyOf(types), known -> new Codec(known, Math.max(4, 2 * Runtime.getRuntime().availableProcessors())));
    }
}
