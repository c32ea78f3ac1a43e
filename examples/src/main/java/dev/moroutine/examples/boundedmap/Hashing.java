package dev.moroutine.examples.boundedmap;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

/** Hashes a file on a worker. */
public final class Hashing {

    private Hashing() {}

    /**
     * A file and the hex SHA-256 of its bytes.
     *
     * @param path the file
     * @param sha256 its hash
     */
    public record FileHash(Path path, String sha256) {}

    /** Reads the file and hashes it. */
    public static final Mo1<Path, FileHash> hashFile = mo(path -> new FileHash(path, sha256(path)));

    /**
     * The hex SHA-256 of a file's bytes.
     *
     * @param path the file
     * @return its hash
     * @throws Exception if it cannot be read
     */
    public static String sha256(Path path) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(path)));
    }
}
