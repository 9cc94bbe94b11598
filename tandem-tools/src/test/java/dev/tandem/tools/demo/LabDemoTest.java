package dev.tandem.tools.demo;

import dev.tandem.tools.TandemCli;
import dev.tandem.tools.lab.Ip;
import dev.tandem.tools.lab.LabPreflight;
import dev.tandem.tools.lab.LabStatus;
import dev.tandem.tools.perf.MiniJson;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tandem demo --lab}: without root it says so and builds nothing; with root (CI) it runs nodes a and
 * b as two processes in a lab, narrates the pulled cable, ends with the demo's clean verdict, and leaves no
 * lab, node process or thread of its own behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LabDemoTest {
    @Test
    void withoutRootItSaysSoAndBuildsNothing() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new DemoCommand(() -> new LabPreflight(1000, Optional.of(Path.of("/usr/sbin/ip")))));
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute("--lab");
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("tandem demo --lab: tandem lab needs root").contains("running as uid 1000")
                .contains("'tandem demo' runs without root");
        assertThat(out.toString()).as("nothing built, nothing narrated").isEmpty();
    }

    @Test
    void acrossALabThePulledCableIsNarratedAndTheVerdictIsCleanAndNothingIsLeft() {
        Ip ip = rootOrSkip();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = TandemCli.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute("demo", "--lab", "-n", "2000");
        String text = out.toString();
        assertThat(exit).as("demo output:%n%s%nstderr:%n%s", text, err).isZero();
        int at = 0;
        for (String step : List.of("building lab " + LabDemo.ownPrefix(), "starting node a in", "connected: a's QP on adapter",
                "FAULT: pulling the cable of a's adapter",
                // a detects the silent link itself, or b does first and a moves because its peer moved
                "a: holding the application's posts; moving QP", "a: MIGRATED to adapter",
                "the application's first completion after the fault came", "plugged in again", "a: path on adapter",
                "messages sent", "pause of fail-over 1", "verdict: clean: nothing lost, duplicated or reordered, checksums equal, through 1 "
                        + "fail-over\n")) {
            int i = text.indexOf(step, at);
            assertThat(i).as("'%s' after position %d in:%n%s", step, at, text).isGreaterThanOrEqualTo(0);
            at = i + step.length();
        }
        assertThat(text).containsPattern("messages received +2000\n").containsPattern("lost +0\n").doesNotContain("FAILED");
        assertThat(LabStatus.namespaces(LabDemo.ownPrefix(), ip)).as("the demo's lab is removed").isEmpty();
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).as("node processes left").isEmpty();
        assertThat(Thread.getAllStackTraces().keySet()).as("the cleanup hook is not left registered as a running thread")
                .noneMatch(t -> t.getName().equals("demo-lab-cleanup") && t.isAlive());
    }

    @Test
    void jsonAcrossALabIsTheDemosVerdictWithOneFailOver() {
        Ip ip = rootOrSkip();
        StringWriter out = new StringWriter();
        CommandLine cl = TandemCli.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(new StringWriter()));
        int exit = cl.execute("demo", "--lab", "--json", "-n", "600");
        assertThat(exit).as("stdout: %s", out).isZero();
        Map<String, Object> json = MiniJson.object(out.toString().trim());
        assertThat(json).containsEntry("messages_received", 600.0).containsEntry("lost", 0.0).containsEntry("duplicated", 0.0)
                .containsEntry("reordered", 0.0).containsEntry("failovers", 1.0).containsEntry("expected_failovers", 1.0)
                .containsEntry("clean", true);
        assertThat(LabStatus.namespaces(LabDemo.ownPrefix(), ip)).isEmpty();
    }

    private static Ip rootOrSkip() {
        LabPreflight preflight = LabPreflight.ofThisProcess();
        Assumptions.assumeTrue(preflight.refusal().isEmpty(), () -> "lab demo test skipped: " + preflight.refusal().orElseThrow());
        return preflight.ipRunner();
    }
}
