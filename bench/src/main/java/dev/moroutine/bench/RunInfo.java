package dev.moroutine.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What a report says about its run: the code's commit, the machine and its load. Stateless. */
public final class RunInfo {

    private RunInfo() {}

    /**
     * Runs git in the working directory.
     *
     * @param args git's arguments
     * @return its first line of output, "" for none, or "unknown" when git fails
     */
    public static String git(String... args) {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor() == 0 ? out.lines().findFirst().orElse("") : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /**
     * The machine's load now.
     *
     * @return the one-minute load average, negative when unknown
     */
    public static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /**
     * A load average for a report.
     *
     * @param load what {@link #load()} returned
     * @return it with two decimals, or "unknown"
     */
    public static String load(double load) {
        return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", load);
    }

    /**
     * The machine for a report: so that a figure is read beside the hardware that gave it.
     *
     * @return the CPU count, the CPU model (from {@code /proc/cpuinfo}, "model unknown" elsewhere), the OS and the
     *     architecture, e.g. "2 CPUs (AMD EPYC), Linux amd64"
     */
    public static String machine() {
        return Runtime.getRuntime().availableProcessors() + " CPUs (" + cpuModel() + "), " + System.getProperty("os.name")
                + " " + System.getProperty("os.arch");
    }

    private static String cpuModel() {
        try (var lines = Files.lines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
            return lines.filter(line -> line.startsWith("model name") && line.indexOf(':') > 0)
                    .map(line -> line.substring(line.indexOf(':') + 1).strip())
                    .findFirst().orElse("model unknown");
        } catch (IOException | java.io.UncheckedIOException e) {
            return "model unknown";
        }
    }
}
