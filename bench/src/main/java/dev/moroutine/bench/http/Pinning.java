package dev.moroutine.bench.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which CPUs wrk and the server under test run on, so that every server gets the same cores: on a
 * 2-CPU machine wrk alone takes most of a core, and unpinned servers fight it for the CPU each in
 * its own way (a server with more threads takes more of it). With {@code taskset} (util-linux) on
 * the {@code PATH} and at least two CPUs allowed to this process, wrk runs on the first allowed CPU
 * and each server on the others; a server then sees only those ({@code availableProcessors()}), so
 * its thread-count defaults follow. Without {@code taskset}, or when asked not to pin, the commands
 * run as they are.
 *
 * @param taskset the {@code taskset} executable, or null when nothing is pinned
 * @param wrkCpus wrk's CPU list, such as {@code 0}
 * @param serverCpus the servers' CPU list, such as {@code 1} or {@code 1-3}
 * @param why what the report says about it
 */
record Pinning(Path taskset, String wrkCpus, String serverCpus, String why) {

    /** Nothing pinned, for the reason given. */
    static Pinning none(String why) {
        return new Pinning(null, null, null, why);
    }

    /**
     * Pins when it can: {@code taskset} found and two or more CPUs allowed (from {@code /proc/self/status}).
     *
     * @param taskset the executable, or null if it is not on the PATH
     * @return the pinning, or none with the reason
     */
    static Pinning choose(Path taskset) {
        if (taskset == null) {
            return none("not pinned: taskset (util-linux) was not found on the PATH, so the servers share every CPU with wrk");
        }
        List<Integer> cpus = allowedCpus();
        if (cpus.size() < 2) {
            return none("not pinned: " + (cpus.isEmpty() ? "the allowed CPUs are unknown" : "only one CPU is allowed")
                    + ", so the servers share it with wrk");
        }
        String servers = join(cpus.subList(1, cpus.size()));
        return new Pinning(taskset, String.valueOf(cpus.getFirst()), servers, "pinned with taskset: wrk on CPU " + cpus.getFirst()
                + ", each server on CPU " + servers + " (it sees " + (cpus.size() - 1) + " of them, and its defaults follow), the"
                + " bench's own JVM anywhere; `-Dbench.pin=off` runs them unpinned");
    }

    /** The command run on wrk's CPUs. */
    List<String> wrk(List<String> command) {
        return on(wrkCpus, command);
    }

    /** The command run on the servers' CPUs. */
    List<String> server(List<String> command) {
        return on(serverCpus, command);
    }

    private List<String> on(String cpus, List<String> command) {
        if (taskset == null) {
            return command;
        }
        List<String> pinned = new ArrayList<>(List.of(taskset.toString(), "-c", cpus));
        pinned.addAll(command);
        return pinned;
    }

    /** The CPUs this process may run on, from {@code Cpus_allowed_list} (such as {@code 0-1,4}); empty if unknown. */
    static List<Integer> allowedCpus() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parseList(line.substring("Cpus_allowed_list:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // not Linux, or an unexpected format: unknown
        }
        return List.of();
    }

    /** A Linux CPU list, such as {@code 0-1,4}, as the CPUs in it. */
    static List<Integer> parseList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.split(",")) {
            String[] range = part.trim().split("-");
            int from = Integer.parseInt(range[0]);
            int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
            for (int cpu = from; cpu <= to; cpu++) {
                cpus.add(cpu);
            }
        }
        return cpus;
    }

    private static String join(List<Integer> cpus) {
        int first = cpus.getFirst();
        int last = cpus.getLast();
        if (last - first + 1 == cpus.size()) {
            return first == last ? String.valueOf(first) : first + "-" + last;
        }
        return String.join(",", cpus.stream().map(String::valueOf).toList());
    }
}
