package dev.moroutine.jcstress;

import java.util.List;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.ReportUtils;

/**
 * Runs jcstress like its own {@code Main}, then prints one line per test (its verdict and its
 * samples) and exits with status 1 if a test failed or if no test ran: jcstress 0.16 ends a run
 * with failures by throwing an {@link AssertionError} after its report, but ends a run that found
 * no test (say, because javac generated no harnesses) normally.
 */
public final class JcstressMain {

    private JcstressMain() {}

    /**
     * Runs the tests.
     *
     * @param args jcstress's options ({@code -h} lists them)
     * @throws Exception if jcstress fails to run or to read its results
     */
    public static void main(String[] args) throws Exception {
        Options options = new Options(args);
        if (!options.parse()) {
            System.exit(2);
        }
        JCStress jcstress = new JCStress(options);
        if (options.shouldList()) {
            jcstress.getTests().forEach(System.out::println);
            return;
        }
        AssertionError failures = null;
        try {
            if (options.shouldParse()) {
                jcstress.parseResults();
            } else {
                jcstress.run(); // prints the report, from the result file it writes
            }
        } catch (AssertionError thrown) {
            failures = thrown; // listed again after the summary, where a build log ends
        }

        InProcessCollector collector = new InProcessCollector();
        DiskReadCollector reader = new DiskReadCollector(options.getResultFile(), collector);
        reader.dump();
        reader.close();
        List<TestResult> results = ReportUtils.mergedByName(collector.getTestResults());
        System.out.println("jcstress summary (samples across all configurations):");
        for (TestResult result : results) {
            System.out.printf("  %-7s %,13d  %s%n", ReportUtils.statusToLabel(result), result.getTotalCount(), result.getName());
        }
        if (failures != null) {
            System.err.println("jcstress: " + failures.getMessage());
            System.exit(1);
        }
        if (results.isEmpty()) {
            System.err.println("jcstress ran no test: does -t match none, or were the harnesses not generated (javac -proc:full)?");
            System.exit(1);
        }
        System.out.println("jcstress: all " + results.size() + " tests passed");
    }
}
