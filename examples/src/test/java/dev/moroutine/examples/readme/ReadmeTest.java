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
        for (String dir : List.of("examples/src", "core/src")) {
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
