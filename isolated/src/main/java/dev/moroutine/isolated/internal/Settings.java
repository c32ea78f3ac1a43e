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
 * @param maxTasks how many tasks a JVM runs before it is retired; 0 for no limit
 * @param idleTimeout how long a JVM that ran tasks may stay idle before it is retired; null for no limit
 */
public record Settings(List<String> jvmOptions, Map<String, String> environment, List<Class<?>> types,
        Duration startTimeout, int crashLimit, Duration crashWindow, int maxTasks, Duration idleTimeout) {

    /**
     * Settings without retirement.
     *
     * @param jvmOptions as above
     * @param environment as above
     * @param types as above
     * @param startTimeout as above
     * @param crashLimit as above
     * @param crashWindow as above
     */
    public Settings(List<String> jvmOptions, Map<String, String> environment, List<Class<?>> types, Duration startTimeout,
            int crashLimit, Duration crashWindow) {
        this(jvmOptions, environment, types, startTimeout, crashLimit, crashWindow, 0, null);
    }
}
