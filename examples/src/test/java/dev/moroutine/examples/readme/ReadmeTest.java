package dev.moroutine.examples.readme;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every {@code ```java} block of the README is a verbatim region of a compiled source file, so no
 * README example can stop compiling. Indentation, blank lines, whole-line comments and the
 * sources' assertion lines ({@code assert…}, {@code fail(…)}) are ignored, so a test can check a
 * snippet's outcome in the middle of it.
 */
class ReadmeTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyJavaBlockIsARegionOfACompiledSource() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        List<List<String>> sources = new ArrayList<>();
        for (String dir : List.of("examples/src", "core/src", "isolated/src", "cluster/src")) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(f -> sources.add(normalise(read(f))));
            }
        }
        Matcher blocks = JAVA_BLOCK.matcher(readme);
        int count = 0;
        while (blocks.find()) {
            count++;
            List<String> block = normalise(blocks.group(1));
            assertTrue(sources.stream().anyMatch(source -> Collections.indexOfSubList(source, block) >= 0),
                    "README block " + count + " is not a region of any source file:\n" + blocks.group(1));
        }
        assertTrue(count >= 5, "expected the README's examples, found " + count + " java blocks");
    }

    /**
     * "Use it in your project" shows the files of the integration test that {@code mvn verify} builds
     * and runs as a separate project, byte for byte (the pom's version is filled in by the invoker).
     */
    @ParameterizedTest
    @ValueSource(strings = {"pom.xml", "src/main/java/module-info.java", "src/main/java/com/example/app/Main.java"})
    void theProjectInUseItInYourProjectIsTheTestedOne(String file) throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Matcher shown = Pattern.compile("`" + Pattern.quote(file) + "`:\\n\\n```\\w+\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(shown.find(), "the README shows " + file + " under a line `" + file + "`:");
        String version = System.getProperty("moroutine.version");
        assertNotNull(version, "the build passes the project's version as the system property moroutine.version");
        String tested = Files.readString(ROOT.resolve("examples/src/it/use-it-in-your-project").resolve(file))
                .replace("@project.version@", version);
        assertEquals(tested, shown.group(1));
    }

    private static List<String> normalise(String text) {
        return text.lines()
                .map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("//") && !line.startsWith("*") && !line.startsWith("/**"))
                .filter(line -> !line.startsWith("assert") && !line.startsWith("fail("))
                .toList();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
