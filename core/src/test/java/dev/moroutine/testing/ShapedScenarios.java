package dev.moroutine.testing;

import java.lang.reflect.Method;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionGenerator;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * Lincheck runs over scenarios that a test shapes itself, for a structure whose operations block
 * or that owns a thread: Lincheck's random scenarios would leave a call waiting forever, which it
 * reports as a hang (it has no model of a blocked thread, JetBrains/lincheck#167). A failed
 * scenario is reported as it is, not minimized: a shorter one could lose what unblocks it.
 */
public final class ShapedScenarios {

    private ShapedScenarios() {}

    /**
     * A stress run of {@code scenarios}, checked against {@code model}.
     *
     * @param scenarios the generator of the shaped scenarios
     * @param model the sequential specification
     * @return the options; the caller sets the sizes
     */
    public static StressOptions stress(Class<? extends ExecutionGenerator> scenarios, Class<?> model) {
        return new StressOptions()
                .executionGenerator(scenarios)
                .sequentialSpecification(model)
                .minimizeFailedScenario(false);
    }

    /**
     * A model-checking run of {@code scenarios}, checked against {@code model}.
     *
     * @param scenarios the generator of the shaped scenarios
     * @param model the sequential specification
     * @return the options; the caller sets the sizes
     */
    public static ModelCheckingOptions modelChecking(Class<? extends ExecutionGenerator> scenarios, Class<?> model) {
        return new ModelCheckingOptions()
                .executionGenerator(scenarios)
                .sequentialSpecification(model)
                .minimizeFailedScenario(false);
    }

    /**
     * One call of an operation in a scenario.
     *
     * @param operations the class whose {@code @Operation} methods the scenario calls
     * @param name the operation (its name is unique in {@code operations})
     * @param arguments its arguments
     * @return the actor
     */
    public static Actor actor(Class<?> operations, String name, Object... arguments) {
        for (Method method : operations.getMethods()) {
            if (method.getName().equals(name)) {
                return new Actor(method, List.of(arguments));
            }
        }
        throw new IllegalArgumentException(operations.getSimpleName() + " has no operation " + name);
    }
}
