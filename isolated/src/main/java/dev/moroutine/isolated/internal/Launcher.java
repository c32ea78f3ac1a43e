package dev.moroutine.isolated.internal;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The command line of a worker JVM (or of any JVM that must see the same classes as this one: the
 * tests start a parent JVM with it): the JDK this JVM runs on, its class path and module path, the
 * module options it was started with (so that the same modules resolve, with the same readability
 * and openness, tests patched into a module included), the library's own options, then the pool's.
 */
public final class Launcher {

    /** Module options this JVM was started with that a worker JVM needs too, to resolve the same modules. */
    private static final Set<String> MODULE_OPTIONS = Set.of("--add-opens", "--add-exports", "--add-reads", "--add-modules",
            "--patch-module", "--limit-modules", "--upgrade-module-path", "--enable-native-access", "--illegal-native-access",
            "--sun-misc-unsafe-memory-access", "--enable-preview");

    private final List<String> command;
    private final Map<String, String> environment;

    /**
     * The command for this JVM's worker JVMs.
     *
     * @param settings the pool's settings
     * @param mainClass the worker JVM's main class
     */
    public Launcher(Settings settings, Class<?> mainClass) {
        List<String> line = new ArrayList<>();
        line.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        line.addAll(inheritedModuleOptions());
        boolean modular = mainClass.getModule().isNamed();
        // Agrona's rings reach the JDK's Unsafe, which java.base exports only when asked; Fory, given
        // java.lang.invoke, needs no sun.misc.Unsafe (which JDK 24+ warns about).
        line.add("--add-exports=java.base/jdk.internal.misc=" + (modular ? "org.agrona" : "ALL-UNNAMED"));
        line.add("--add-opens=java.base/java.lang.invoke=" + (modular ? "org.apache.fory.core" : "ALL-UNNAMED"));
        line.addAll(settings.jvmOptions());
        String classPath = System.getProperty("java.class.path", "");
        if (!classPath.isEmpty()) {
            line.add("-cp");
            line.add(classPath);
        }
        String modulePath = System.getProperty("jdk.module.path", "");
        if (!modulePath.isEmpty()) {
            line.add("-p");
            line.add(modulePath);
        }
        if (modular) {
            // The modules this JVM resolved, which -m alone would not: the application's, and the
            // JDK's that it reaches only by reflection (jdk.unsupported, for one).
            line.add("--add-modules=" + ModuleLayer.boot().modules().stream().map(Module::getName).sorted()
                    .collect(Collectors.joining(",")));
            line.add("-m");
            line.add(mainClass.getModule().getName() + "/" + mainClass.getName());
        } else {
            line.add(mainClass.getName());
        }
        this.command = List.copyOf(line);
        this.environment = settings.environment();
    }

    private static List<String> inheritedModuleOptions() {
        List<String> inherited = new ArrayList<>();
        List<String> arguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < arguments.size(); i++) {
            String argument = arguments.get(i);
            int equals = argument.indexOf('=');
            String name = equals < 0 ? argument : argument.substring(0, equals);
            if (MODULE_OPTIONS.contains(name)) {
                inherited.add(argument);
                if (equals < 0 && !name.equals("--enable-preview") && i + 1 < arguments.size()) {
                    inherited.add(arguments.get(++i)); // "--add-opens x" rather than "--add-opens=x"
                }
            }
        }
        return inherited;
    }

    /**
     * Starts one worker JVM.
     *
     * @param arguments the main class's arguments
     * @return the process
     * @throws IOException if it cannot be started
     */
    public Process start(List<String> arguments) throws IOException {
        List<String> line = new ArrayList<>(command);
        line.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(line);
        builder.environment().putAll(environment);
        return builder.start();
    }
}
