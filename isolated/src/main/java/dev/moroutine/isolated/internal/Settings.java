package dev.moroutine.isolated.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a pool of isolated workers is told, beside its {@link dev.moroutine.PoolOptions}.
 *
 * @param jvmOptions options for each worker JVM (heap, system properties, anything else), after the library's own
 * @param environment variables added to each worker JVM's environment
 * @param types the classes registered with the codec, in order
 * @param startTimeout how long a worker JVM may take to start
 * @param crashLimit how many unexpected deaths within {@code crashWindow} stop the pool
 * @param crashWindow see {@code crashLimit}
 */
public record Settings(List<String> jvmOptions, Map<String, String> environment, List<Class<?>> types,
        Duration startTimeout, int crashLimit, Duration crashWindow) {}
