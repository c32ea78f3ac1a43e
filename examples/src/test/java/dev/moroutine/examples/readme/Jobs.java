package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Signal;
import java.nio.file.Files;
import java.nio.file.Path;

public final class Jobs {
    public static final Mo2<Signal, Long, Long> countUntilAborted = mo((signal, limit) -> {
        long n = 0;
        while (n < limit && !signal.aborted()) n++;
        return n;
    });

    public static final Mo1<Path, Long> countLines = mo(file -> {
        try (var lines = Files.lines(file)) {
            return lines.count();
        }
    });

    public static final Mo0<String> warmUp = mo(() -> Thread.currentThread().getName());
}
