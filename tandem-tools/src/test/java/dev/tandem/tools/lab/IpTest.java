package dev.tandem.tools.lab;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Running {@code ip}: its output, a failure that quotes the command and its stderr, and a bound on how long it may take. No root needed. */
class IpTest {
    private static Ip ipOrSkip() {
        Assumptions.assumeTrue(Ip.find().isPresent(), "no 'ip' command (iproute2) on this machine");
        return new Ip(Ip.find().orElseThrow(), Ip.DEFAULT_WAIT);
    }

    private static Path script(Path dir, String body) throws IOException {
        Path s = dir.resolve("ip");
        Files.writeString(s, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwx------"));
        return s;
    }

    @Test
    void returnsWhatItPrinted() {
        assertThat(ipOrSkip().run("-br", "link", "show", "dev", "lo")).startsWith("lo ");
    }

    @Test
    void aFailingCommandIsAnExceptionQuotingItAndItsStderr() {
        Ip ip = ipOrSkip();
        assertThatThrownBy(() -> ip.run("link", "show", "dev", "tandemnosuch0")).isInstanceOf(LabException.class)
                .hasMessage("'ip link show dev tandemnosuch0' failed (exit 1): Device \"tandemnosuch0\" does not exist.");
    }

    @Test
    void aCommandThatHangsIsKilledAfterTheBound(@TempDir Path dir) throws IOException {
        Ip slow = new Ip(script(dir, "echo 'still thinking' >&2\nexec sleep 30"), Duration.ofMillis(300));
        long start = System.nanoTime();
        assertThatThrownBy(() -> slow.run("netns", "add", "x")).isInstanceOf(LabException.class)
                .hasMessage("'ip netns add x' did not finish within 300 ms; killed it: still thinking");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aCommandThatCannotStartIsAnException(@TempDir Path dir) {
        Ip missing = new Ip(dir.resolve("no-ip-here"), Duration.ofSeconds(1));
        assertThatThrownBy(() -> missing.run("link")).isInstanceOf(LabException.class).hasMessageStartingWith("could not run 'ip link': ");
    }

    @Test
    void execRunsACommandInsideANamespace() {
        Ip ip = new Ip(Path.of("/sbin/ip"), Duration.ofSeconds(1));
        assertThat(ip.exec("lab-h1", List.of("java", "-version")).command())
                .containsExactly("/sbin/ip", "netns", "exec", "lab-h1", "java", "-version");
        assertThatThrownBy(() -> ip.exec("lab-h1", List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no command to run in namespace lab-h1");
        assertThatThrownBy(() -> new Ip(Path.of("/sbin/ip"), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("wait must be positive, not PT0S");
    }
}
