package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code -Dtandem.ras=off} turns counter updates and trace checks into no-ops, in a child JVM. */
class RasSwitchTest {

    @Test
    void parsesOnAndOff() {
        assertThat(RasSwitch.parse(null)).isTrue();
        assertThat(RasSwitch.parse("")).isTrue();
        assertThat(RasSwitch.parse("on")).isTrue();
        assertThat(RasSwitch.parse(" ON ")).isTrue();
        assertThat(RasSwitch.parse("off")).isFalse();
        assertThat(RasSwitch.parse("Off")).isFalse();
        assertThatThrownBy(() -> RasSwitch.parse("of")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-Dtandem.ras=of").hasMessageContaining("'on' nor 'off'");
    }

    @Test
    void thisJvmRunsWithRasOn() {
        assertThat(RasSwitch.ON).as("surefire starts the tests without -Dtandem.ras").isTrue();
    }

    @Test
    @Timeout(120)
    void offKeepsCountersAtZeroAndTracingDisabledInAChildJvm(@TempDir Path dir) throws Exception {
        Path on = dir.resolve("on");
        Path off = dir.resolve("off");
        assertThat(runChild(on, List.of())).isEqualTo("SWITCH true ENABLED true VALUE 112");
        assertThat(runChild(off, List.of("-Dtandem.ras=off"))).isEqualTo("SWITCH false ENABLED false VALUE 0");
        assertThat(runChild(dir.resolve("typo"), List.of("-Dtandem.ras=of"))).as("a typo warns and leaves RAS on")
                .isEqualTo("SWITCH true ENABLED true VALUE 112");
        try (RasReader reader = RasReader.open(single(off))) {
            assertThat(reader.counters()).singleElement().satisfies(c -> {
                assertThat(c.label()).isEqualTo("child.switched");
                assertThat(c.value()).isZero();
            });
        }
        try (RasReader reader = RasReader.open(single(on))) {
            assertThat(reader.counters()).singleElement().extracting(CounterSnapshot::value).isEqualTo(112L);
        }
    }

    private static Path single(Path dir) throws IOException {
        try (var files = java.nio.file.Files.list(dir)) {
            List<Path> all = files.toList();
            assertThat(all).as("RAS files in " + dir).hasSize(1);
            return all.getFirst();
        }
    }

    /** Runs {@link RasSwitchChild} and returns its last stdout line. */
    private static String runChild(Path dir, List<String> jvmArgs) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx64m"));
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), RasSwitchChild.class.getName(), dir.toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child " + jvmArgs + " finished within 60 s").isTrue();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.exitValue()).as("child exit status; output:\n" + out).isZero();
            List<String> lines = out.lines().toList();
            return lines.getLast();
        } finally {
            child.destroyForcibly();
        }
    }
}
