package dev.moroutine;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.module.ModuleReader;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of the exported packages, compared with the checked-in {@code core/api/dev.moroutine.api}:
 * every change to it is a visible diff in review. After an intended change, run this test with
 * {@code -Dmoroutine.api.update=true} and commit the new file.
 */
class PublicApiTest {

    private static final Path CHECKED_IN = Path.of("api", "dev.moroutine.api");

    @Test
    void publicApiMatchesTheCheckedInDump() throws IOException {
        String dump = String.join("\n", dump()) + "\n";
        if (Boolean.getBoolean("moroutine.api.update")) {
            Files.writeString(CHECKED_IN, dump);
            return;
        }
        String expected = Files.exists(CHECKED_IN) ? Files.readString(CHECKED_IN) : "";
        if (!dump.equals(expected)) {
            List<String> now = dump.lines().toList();
            List<String> before = expected.lines().toList();
            String added = now.stream().filter(l -> !before.contains(l)).map(l -> "+ " + l).collect(Collectors.joining("\n"));
            String removed = before.stream().filter(l -> !now.contains(l)).map(l -> "- " + l).collect(Collectors.joining("\n"));
            fail("the public API differs from core/" + CHECKED_IN + "; if the change is intended, run the core tests with"
                    + " -Dmoroutine.api.update=true and commit the file\n" + removed + "\n" + added);
        }
    }

    /** One sorted line per public type and per public or protected member of the exported packages. */
    private static List<String> dump() throws IOException {
        Module module = Moroutine.class.getModule();
        Set<String> exported = module.getDescriptor().exports().stream()
                .filter(e -> !e.isQualified())
                .map(e -> e.source())
                .collect(Collectors.toSet());
        ResolvedModule resolved = module.getLayer().configuration().findModule(module.getName()).orElseThrow();
        List<String> classNames;
        try (ModuleReader reader = resolved.reference().open(); Stream<String> entries = reader.list()) {
            classNames = entries.filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .filter(n -> n.contains(".")) // the unnamed package's NoLeakedWorkersEverywhere is no part of the module
                    .filter(n -> exported.contains(n.substring(0, n.lastIndexOf('.'))))
                    .toList();
        }
        List<String> lines = new ArrayList<>();
        for (String name : classNames) {
            Class<?> type;
            try {
                type = Class.forName(name, false, Moroutine.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            if (!isVisible(type)) {
                continue;
            }
            String owner = type.getName();
            lines.add(owner + " : " + type.toGenericString()
                    + (type.isSealed() ? " permits " + Arrays.stream(type.getPermittedSubclasses())
                            .map(Class::getName).sorted().collect(Collectors.joining(", ")) : ""));
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                if (isVisibleMember(c)) {
                    lines.add(owner + " : " + c.toGenericString());
                }
            }
            for (Method m : type.getDeclaredMethods()) {
                if (isVisibleMember(m) && !m.isSynthetic() && !m.isBridge()) {
                    lines.add(owner + " : " + m.toGenericString());
                }
            }
            for (Field f : type.getDeclaredFields()) {
                if (isVisibleMember(f) && !f.isSynthetic()) {
                    lines.add(owner + " : " + f.toGenericString());
                }
            }
        }
        lines.sort(null);
        return lines;
    }

    private static boolean isVisible(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers()) && !Modifier.isProtected(t.getModifiers())) {
                return false;
            }
        }
        return !type.isAnonymousClass() && !type.isLocalClass() && !type.isSynthetic();
    }

    private static boolean isVisibleMember(Member member) {
        int modifiers = member.getModifiers();
        boolean extensible = !Modifier.isFinal(member.getDeclaringClass().getModifiers())
                && !member.getDeclaringClass().isSealed();
        return Modifier.isPublic(modifiers) || (Modifier.isProtected(modifiers) && extensible);
    }
}
