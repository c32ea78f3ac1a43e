package dev.moroutine.examples.boundedmap;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.boundedmap.Hashing.*;
import static dev.moroutine.stream.Streaming.*;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * SHA-256 of every file under a directory tree with {@code map}: the tree is walked lazily, at most
 * four files are hashed at once on the pool, and results arrive in completion order. Hashes the
 * directory given as the first argument, or the examples' own sources.
 */
public final class BoundedMapExample {

    private BoundedMapExample() {}

    /**
     * Hashes a tree and checks every hash against one computed on the main thread.
     *
     * @param args an optional directory
     * @throws Exception if the tree cannot be read
     */
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : "src");
        Map<Path, String> hashes = new HashMap<>();
        try (Pool pool = workers(); Stream<Path> tree = Files.walk(root)) {
            Iterator<Task<FileHash>> tasks = tree.filter(Files::isRegularFile).map(hashFile::call).iterator();
            try (LiveStream<FileHash> results = map(pool, tasks, 4)) {
                for (FileHash result : results) {
                    if (hashes.size() < 5) {
                        System.out.printf("%s  %s%n", result.sha256().substring(0, 12), root.relativize(result.path()));
                    }
                    hashes.put(result.path(), result.sha256());
                }
            }
        }
        System.out.printf("… %d files hashed under %s%n", hashes.size(), root);
        int right = 0;
        for (Map.Entry<Path, String> entry : hashes.entrySet()) {
            if (entry.getValue().equals(sha256(entry.getKey()))) right++;
        }
        check(right == hashes.size() && right > 0, right + " of " + hashes.size() + " hashes match a local computation");
    }
}
