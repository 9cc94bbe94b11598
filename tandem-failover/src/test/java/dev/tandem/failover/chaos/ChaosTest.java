package dev.tandem.failover.chaos;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The chaos harness as tests: one dynamic test per scenario, named with its kind, seed and topology,
 * each failing with its report when the checker found anything. The default is the bounded CI set (two
 * scenarios of each fault kind, two seconds of traffic each); {@link ChaosSettings} says how to run one
 * scenario alone or a long run. The summary goes to standard output and {@code target/chaos-report.txt}.
 */
class ChaosTest {
    private static ChaosSettings settings;
    private static ChaosReport report;

    @BeforeAll
    static void settings() {
        settings = ChaosSettings.fromSystemProperties();
        report = new ChaosReport(settings.describe());
        System.out.println("[chaos] " + settings.describe());
    }

    @TestFactory
    Stream<DynamicTest> scenarios() {
        return settings.scenarios().stream().map(spec -> DynamicTest.dynamicTest(spec.displayName(), () -> {
            ScenarioResult r = ScenarioRunner.run(spec);
            report.add(r);
            String text = r.describe(ChaosReport.FIRST_VIOLATIONS, ChaosReport.FIRST_EVENTS);
            System.out.print("[chaos] " + text);
            if (r.failed()) {
                fail(text);
            }
        }));
    }

    @AfterAll
    static void summary() throws IOException {
        String s = report.summary();
        System.out.print("[chaos] summary\n" + s);
        report.write(Path.of("target", "chaos-report.txt"));
    }
}
