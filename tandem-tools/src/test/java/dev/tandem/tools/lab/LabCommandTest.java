package dev.tandem.tools.lab;

import dev.tandem.tools.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tandem lab} on the command line where nothing may be built: bad usage is refused before root is
 * asked for, and without root or {@code ip} every subcommand but {@code --help} says so in one line.
 * Runs everywhere (the machine's real uid does not matter: the tests give the command its preflight).
 */
class LabCommandTest {
    private static final String NO_ROOT = "tandem lab needs root to create network namespaces (running as uid 1000); run it with sudo\n";

    private static CliRun.Result run(LabPreflight preflight, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new LabCommand(() -> preflight));
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new CliRun.Result(exit, out.toString(), err.toString());
    }

    private static LabPreflight user() {
        return new LabPreflight(1000, Optional.of(Path.of("/usr/sbin/ip")));
    }

    @Test
    void withoutRootEverySubcommandSaysSoInOneLine() {
        for (List<String> args : List.of(List.of("up"), List.of("up", "--switchless"), List.of("fail", "h1.a1"), List.of("heal", "switch1"),
                List.of("status"), List.of("down", "--prefix", "mine"))) {
            CliRun.Result r = run(user(), args.toArray(String[]::new));
            assertThat(r.exit()).as("exit of lab %s", args).isEqualTo(1);
            assertThat(r.out()).as("stdout of lab %s", args).isEmpty();
            assertThat(r.err()).as("stderr of lab %s", args).isEqualTo(NO_ROOT);
        }
    }

    @Test
    void withoutIpEverySubcommandSaysSo() {
        CliRun.Result r = run(new LabPreflight(0, Optional.empty()), "up");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("tandem lab needs the 'ip' command of iproute2 and found it neither on PATH nor in /usr/sbin or /sbin;"
                + " install iproute2\n");
    }

    @Test
    void helpWorksWithoutRoot() {
        CliRun.Result lab = run(user(), "--help");
        assertThat(lab.exit()).isZero();
        assertThat(lab.out()).contains("Usage: lab").contains("up").contains("fail").contains("heal").contains("status").contains("down");
        CliRun.Result up = run(user(), "up", "--help");
        assertThat(up.exit()).isZero();
        assertThat(up.out()).contains("--switchless").contains("--hosts=N").contains("--adapters=M").contains("--prefix=P");
        assertThat(up.err()).isEmpty();
    }

    @Test
    void badUsageIsRefusedBeforeRootIsAskedFor() {
        assertThat(run(user(), "up", "--switchless", "--hosts", "3").err())
                .startsWith("a switchless lab has exactly 2 hosts (adapter k of one cabled to adapter k of the other), not 3");
        assertThat(run(user(), "up", "--switched", "--switchless").err())
                .startsWith("--switched and --switchless exclude each other: choose one topology");
        assertThat(run(user(), "up", "--adapters", "9").err()).startsWith("a lab host has 1 to 8 adapters, not 9");
        assertThat(run(user(), "down", "--prefix", "no good").err()).startsWith("prefix 'no good' is not usable in namespace names");
        assertThat(run(user(), "fail", "h1.a1", "eth0").err()).startsWith("'eth0' is not a lab target: give hI.aK (adapter K of host I;");
        assertThat(run(user(), "heal").err()).startsWith("Missing required parameter: 'TARGET'");
        for (String[] args : new String[][]{{"up", "--switchless", "--hosts", "3"}, {"fail", "eth0"}, {"heal"}, {"up", "--hosts", "x"}}) {
            assertThat(run(user(), args).exit()).as("exit of lab %s", String.join(" ", args)).isEqualTo(2);
        }
    }

    @Test
    void labAloneAsksForASubcommandAndTandemKnowsLab() {
        assertThat(CliRun.usageError("lab")).startsWith("Missing lab command: try 'tandem lab up', 'fail', 'heal', 'status' or 'down'");
        assertThat(CliRun.usageError("lab", "up", "--switchless", "--hosts", "3")).startsWith("a switchless lab has exactly 2 hosts");
        assertThat(CliRun.run("--help").out()).contains("lab     Test hosts made of Linux network namespaces");
    }
}
