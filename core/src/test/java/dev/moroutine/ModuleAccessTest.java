package dev.moroutine;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The lookup of a moroutine in a user's module that does not open its package to
 * {@code dev.moroutine}. The fixture {@link dev.moroutine.closed.Orders} is loaded into a module
 * layer of its own (the tests themselves run inside {@code dev.moroutine}, which reads everything).
 */
class ModuleAccessTest {

    private static final String MODULE = "orders.app";
    private static final String PACKAGE = "dev.moroutine.closed";
    private static final String ADVICE = " add `opens dev.moroutine.closed to dev.moroutine;` to your module-info.java"
            + " (or make both the class and the field public in an exported package)";

    /** Both Mo1 fields are unreadable, and either could hold the moroutine: the message names both, not the last one. */
    @Test
    void anUnreadableFieldAmongSeveralOfTheSameTypeNamesEveryCandidate() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> callFixture("openShard"));
        assertEquals("the moroutine made at Orders.java:16 (in dev.moroutine.closed.Orders) could not be looked up:"
                + " its fields count, openShard (one of which should hold it) are not accessible to module dev.moroutine;"
                + ADVICE, e.getMessage());
    }

    @Test
    void theOnlyUnreadableFieldOfItsTypeIsNamed() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> callFixture("name"));
        assertEquals("the moroutine made at Orders.java:18 (in dev.moroutine.closed.Orders) could not be looked up:"
                + " its field name is not accessible to module dev.moroutine;" + ADVICE, e.getMessage());
    }

    /** Runs a public static method of the fixture, loaded in its own module, and rethrows what it threw. */
    private static void callFixture(String method) throws Throwable {
        Class<?> orders = Class.forName(fixtureModule(), PACKAGE + ".Orders");
        try {
            orders.getMethod(method).invoke(null);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * A module {@value #MODULE} that holds the fixture's package, exports it to dev.moroutine (so this
     * test may call its public methods) and opens nothing. Its class files are read from this
     * module's own, where Maven compiled them.
     */
    private static Module fixtureModule() {
        ModuleDescriptor descriptor = ModuleDescriptor.newModule(MODULE)
                .requires("dev.moroutine")
                .exports(PACKAGE, Set.of("dev.moroutine"))
                .build();
        ModuleReference reference = new ModuleReference(descriptor, null) {
            @Override
            public ModuleReader open() {
                return new ModuleReader() {
                    @Override
                    public Optional<URI> find(String name) {
                        return Optional.empty();
                    }

                    @Override
                    public Optional<InputStream> open(String name) throws IOException {
                        return Optional.ofNullable(ModuleAccessTest.class.getModule().getResourceAsStream(name));
                    }

                    @Override
                    public Stream<String> list() {
                        return Stream.empty();
                    }

                    @Override
                    public void close() {}
                };
            }
        };
        ModuleFinder finder = new ModuleFinder() {
            @Override
            public Optional<ModuleReference> find(String name) {
                return name.equals(MODULE) ? Optional.of(reference) : Optional.empty();
            }

            @Override
            public Set<ModuleReference> findAll() {
                return Set.of(reference);
            }
        };
        ModuleLayer boot = ModuleLayer.boot();
        Configuration configuration = boot.configuration().resolve(finder, ModuleFinder.of(), Set.of(MODULE));
        return boot.defineModulesWithOneLoader(configuration, ClassLoader.getSystemClassLoader())
                .findModule(MODULE).orElseThrow();
    }
}
