package dev.tandem.tools.lab;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Root and {@code ip}, and the one line a user gets without them. */
class LabPreflightTest {
    private static final Optional<Path> IP = Optional.of(Path.of("/usr/sbin/ip"));

    @Test
    void theEffectiveUidIsTheSecondNumberOfTheUidLine() {
        assertThat(LabPreflight.effectiveUid("Name:\tjava\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n")).isZero();
        assertThat(LabPreflight.effectiveUid("Uid:\t0\t1000\t0\t0\n")).isEqualTo(1000);
        assertThatThrownBy(() -> LabPreflight.effectiveUid("Name:\tjava\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no 'Uid:' line");
    }

    @Test
    void thisProcessIsSeenAsIdSeesIt() throws IOException, InterruptedException {
        Process id = new ProcessBuilder("id", "-u").start();
        assertThat(id.waitFor(10, TimeUnit.SECONDS)).as("id -u finished").isTrue();
        long uid = Long.parseLong(new String(id.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip());
        assertThat(LabPreflight.ofThisProcess().effectiveUid()).isEqualTo(uid);
    }

    @Test
    void withoutRootTheReasonIsOneLineThatSaysWhatToDo() {
        assertThat(new LabPreflight(1000, IP).refusal())
                .hasValue("tandem lab needs root to create network namespaces (running as uid 1000); run it with sudo");
        assertThat(new LabPreflight(-1, IP).refusal()).hasValue("tandem lab needs root to create network namespaces"
                + " (could not read the effective uid from /proc/self/status); run it with sudo");
    }

    @Test
    void withoutIpTheReasonNamesIproute2() {
        assertThat(new LabPreflight(0, Optional.empty()).refusal()).hasValue("tandem lab needs the 'ip' command of iproute2 and found it"
                + " neither on PATH nor in /usr/sbin or /sbin; install iproute2");
        assertThatThrownBy(() -> new LabPreflight(0, Optional.empty()).ipRunner()).isInstanceOf(LabException.class)
                .hasMessageContaining("install iproute2");
    }

    @Test
    void rootWithIpMayTry() {
        assertThat(new LabPreflight(0, IP).refusal()).isEmpty();
        assertThat(new LabPreflight(0, IP).ipRunner().binary()).isEqualTo(IP.orElseThrow());
    }
}
