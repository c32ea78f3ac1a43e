package dev.moroutine.bench.http;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one {@code wrk --latency} run printed: its throughput, its latency percentiles and its errors.
 *
 * @param requestsPerSecond "Requests/sec"
 * @param requests the requests completed
 * @param p50Micros the median latency, in µs
 * @param p90Micros the 90th percentile, in µs
 * @param p99Micros the 99th percentile, in µs
 * @param errors socket errors (connect, read, write, timeout) and responses that were not 2xx or 3xx
 */
public record Wrk(double requestsPerSecond, long requests, double p50Micros, double p90Micros, double p99Micros, long errors) {

    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern COUNT = Pattern.compile("(\\d+) requests in ");
    private static final Pattern SOCKET = Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");

    /**
     * Reads wrk's output.
     *
     * @param output what wrk printed
     * @return the result
     * @throws IllegalArgumentException if the output lacks the throughput or the latency distribution
     */
    public static Wrk parse(String output) {
        Matcher rate = RATE.matcher(output);
        Matcher count = COUNT.matcher(output);
        if (!rate.find() || !count.find()) {
            throw new IllegalArgumentException("no \"Requests/sec\" in wrk's output:\n" + output);
        }
        long errors = 0;
        Matcher socket = SOCKET.matcher(output);
        if (socket.find()) {
            for (int i = 1; i <= 4; i++) {
                errors += Long.parseLong(socket.group(i));
            }
        }
        Matcher non2xx = NON_2XX.matcher(output);
        if (non2xx.find()) {
            errors += Long.parseLong(non2xx.group(1));
        }
        return new Wrk(Double.parseDouble(rate.group(1)), Long.parseLong(count.group(1)), percentile(output, "50"),
                percentile(output, "90"), percentile(output, "99"), errors);
    }

    /** A line of wrk's "Latency Distribution", such as {@code 99%    2.05ms}, in µs. */
    private static double percentile(String output, String which) {
        Matcher line = Pattern.compile("(?m)^\\s*" + which + "%\\s+([0-9.]+)(us|ms|s|m|h)\\s*$").matcher(output);
        if (!line.find()) {
            throw new IllegalArgumentException("no " + which + "% line (run wrk with --latency) in wrk's output:\n" + output);
        }
        double value = Double.parseDouble(line.group(1));
        return value * switch (line.group(2).toLowerCase(Locale.ROOT)) {
            case "us" -> 1;
            case "ms" -> 1e3;
            case "s" -> 1e6;
            case "m" -> 60e6;
            default -> 3600e6;
        };
    }
}
