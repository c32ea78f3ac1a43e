import dev.moroutine.testing.NoLeakedWorkers;

/**
 * Registers {@link NoLeakedWorkers} for every core test, through JUnit's extension autodetection
 * ({@code META-INF/services/org.junit.jupiter.api.extension.Extension}, enabled in
 * {@code junit-platform.properties}).
 *
 * <p>Why it is here, in the unnamed package: Surefire runs the tests patched into the named module
 * {@code dev.moroutine}, and {@link java.util.ServiceLoader} ignores a provider listed in a
 * {@code META-INF/services} file when its class is in a named module; a module would have to
 * declare {@code provides}, and the library's module-info must not name JUnit. {@code --patch-module}
 * adds every package of {@code target/test-classes} to the module except the unnamed package, and
 * that directory is also on the class path, so this class alone is loaded from the class path into
 * the unnamed module, where the service loader accepts it. It may extend a class of the module
 * because {@code core/pom.xml} opens {@code dev.moroutine.testing} to the unnamed module.
 */
public final class NoLeakedWorkersEverywhere extends NoLeakedWorkers {

    /** Made by the service loader. */
    public NoLeakedWorkersEverywhere() {}
}
