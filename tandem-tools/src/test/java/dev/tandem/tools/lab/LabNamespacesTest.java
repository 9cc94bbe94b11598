package dev.tandem.tools.lab;

import dev.tandem.tools.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Real labs in network namespaces: what is cabled to what, what a pulled cable and a dead switch cut off,
 * that healing restores it, and that nothing of a lab is left after {@code down}. Needs root and
 * {@code ip netns} (CI has both); skipped with the reason elsewhere. Each lab has a prefix of its own and is
 * removed after each test, whatever happened.
 */
class LabNamespacesTest {
    private static final Target.Adapter H1A1 = new Target.Adapter(1, 1);

    private Ip ip;
    private String prefix;
    private final List<HostAgent> agents = new ArrayList<>();

    @BeforeEach
    void setUp() {
        ip = LabFixture.ipOrSkip();
        prefix = LabFixture.uniquePrefix();
    }

    @AfterEach
    void tearDown() {
        agents.forEach(HostAgent::close);
        assertThat(agents).as("agents still running after close").noneMatch(HostAgent::isAlive);
        if (ip != null) {
            Lab.down(prefix, ip);
            assertThat(LabStatus.namespaces(prefix, ip)).as("namespaces left by the test").isEmpty();
        }
    }

    private List<HostAgent> startAgents(Lab lab) throws IOException {
        List<HostAgent> started = HostAgent.startAll(lab);
        agents.addAll(started);
        return started;
    }

    @Test
    void switchedLabReachesEveryOtherHostsAdapterAndAPulledCableCutsOffOnlyThatAdapter() throws IOException {
        Lab lab = Lab.up(new LabPlan(prefix, Topology.SWITCHED, 3, 2), ip);
        List<HostAgent> hosts = startAgents(lab);

        Reachability.assertReach(lab, hosts, "all healthy (the switches route between fabrics)", (a, b) -> true);

        lab.fail("h1.a1");
        Map<String, String> outcomes = Reachability.assertReach(lab, hosts, "after pulling the cable of h1.a1",
                (a, b) -> !a.equals(H1A1) && !b.equals(H1A1));
        assertThat(outcomes).as("what peers on fabric 1 send to h1.a1 vanishes: no RST, no error")
                .containsEntry("h2.a1>h1.a1", "timeout").containsEntry("h3.a1>h1.a1", "timeout");
        assertThat(lab.status().namespace(lab.namespace(1)).flatMap(n -> n.link("a1")).map(LinkState::condition)).hasValue("down");

        lab.heal("host1.a1");
        Reachability.assertReach(lab, hosts, "after healing h1.a1", (a, b) -> true);
    }

    @Test
    void aDeadSwitchCutsOffItsFabricForEveryHostAndComesBack() throws IOException {
        Lab lab = Lab.up(new LabPlan(prefix, Topology.SWITCHED, 3, 2), ip);
        List<HostAgent> hosts = startAgents(lab);

        lab.fail("switch1");
        Map<String, String> outcomes = Reachability.assertReach(lab, hosts, "with switch1 off",
                (a, b) -> a.adapter() != 1 && b.adapter() != 1);
        assertThat(outcomes).as("frames into a dead switch vanish").containsEntry("h1.a1>h2.a1", "timeout")
                .containsEntry("h3.a1>h2.a1", "timeout");
        assertThat(lab.status().namespace(prefix + "-sw").flatMap(n -> n.link("h1a1")).map(LinkState::condition))
                .as("hosts keep their link to a dead switch").hasValue("up");

        lab.heal("switch1");
        Reachability.assertReach(lab, hosts, "after switch1 came back", (a, b) -> true);
    }

    @Test
    void switchlessLabCablesAdapterKToAdapterKOnly() throws IOException {
        Lab lab = Lab.up(new LabPlan(prefix, Topology.SWITCHLESS, 2, 2), ip);
        List<HostAgent> hosts = startAgents(lab);

        Reachability.assertReach(lab, hosts, "switchless, all healthy", (a, b) -> a.adapter() == b.adapter());

        lab.fail("h1.a1");
        Map<String, String> outcomes = Reachability.assertReach(lab, hosts, "switchless, h1.a1 pulled",
                (a, b) -> a.adapter() == b.adapter() && a.adapter() != 1);
        assertThat(outcomes).containsEntry("h2.a1>h1.a1", "timeout");
        assertThat(lab.status().namespace(lab.namespace(2)).flatMap(n -> n.link("a1")).map(LinkState::condition))
                .as("the far end of a pulled cable loses carrier").hasValue("no carrier");

        lab.heal("h1.a1");
        lab.fail("h1.a2-h2.a2");
        Reachability.assertReach(lab, hosts, "switchless, the cable of fabric 2 cut", (a, b) -> a.adapter() == 1 && b.adapter() == 1);

        lab.heal("h1.a2-h2.a2");
        Reachability.assertReach(lab, hosts, "switchless, healed", (a, b) -> a.adapter() == b.adapter());
    }

    @Test
    void downRemovesEveryNamespaceAndAgainDoesNothing() {
        Lab lab = Lab.up(new LabPlan(prefix, Topology.SWITCHED, 2, 2), ip);
        assertThat(LabStatus.namespaces(prefix, ip)).containsExactly(prefix + "-h1", prefix + "-h2", prefix + "-sw");

        lab.down();

        assertThat(LabStatus.namespaces(prefix, ip)).isEmpty();
        assertThat(Lab.down(prefix, ip)).as("a second down").isEmpty();
    }

    @Test
    void downCleansUpWhatACrashLeftBehind() {
        Lab.up(new LabPlan(prefix, Topology.SWITCHED, 3, 1), ip);   // its owner "crashes": nobody calls down
        ip.run("netns", "delete", prefix + "-h2");                 // and had begun to tear it down

        assertThatThrownBy(() -> Lab.attach(prefix, ip)).isInstanceOf(LabException.class)
                .hasMessage("lab " + prefix + " is incomplete (namespace " + prefix + "-h2 is missing): 'tandem lab down --prefix "
                        + prefix + "' removes what is left");
        CliRun.Result status = CliRun.run("lab", "status", "--prefix", prefix);
        assertThat(status.out()).contains("lab " + prefix + ": incomplete (namespace " + prefix + "-h2 is missing)");

        CliRun.Result down = CliRun.run("lab", "down", "--prefix", prefix);

        assertThat(down.exit()).as("stderr: %s", down.err()).isZero();
        assertThat(down.out()).isEqualTo("lab " + prefix + " is down: deleted " + prefix + "-h1, " + prefix + "-h3, " + prefix + "-sw\n");
        assertThat(LabStatus.namespaces(prefix, ip)).isEmpty();
    }

    @Test
    void anUpThatFailsPartWayRemovesWhatItBuilt(@TempDir Path dir) throws IOException {
        Path failing = dir.resolve("ip");
        Files.writeString(failing, "#!/bin/sh\ncase \"$*\" in *'addr add 10.77.2.2/24'*) echo 'injected: no such luck' >&2; exit 2;; esac\n"
                + "exec '" + ip.binary() + "' \"$@\"\n");
        Files.setPosixFilePermissions(failing, PosixFilePermissions.fromString("rwx------"));

        assertThatThrownBy(() -> Lab.up(new LabPlan(prefix, Topology.SWITCHED, 2, 2), new Ip(failing, Duration.ofSeconds(10))))
                .isInstanceOf(LabException.class)
                .hasMessage("'ip -n " + prefix + "-h2 addr add 10.77.2.2/24 dev a2' failed (exit 2): injected: no such luck");

        assertThat(LabStatus.namespaces(prefix, ip)).as("namespaces left by the failed up").isEmpty();
    }

    @Test
    void upRefusesALabThatExistsAndLeavesItWhole() {
        LabPlan plan = new LabPlan(prefix, Topology.SWITCHLESS, 2, 1);
        Lab.up(plan, ip);

        assertThatThrownBy(() -> Lab.up(plan, ip)).isInstanceOf(LabException.class)
                .hasMessageStartingWith("lab " + prefix + " exists already (" + prefix + "-h1, " + prefix + "-h2)");

        assertThat(Lab.attach(prefix, ip).plan()).isEqualTo(plan);
    }

    @Test
    void theCommandLineBuildsFailsHealsShowsAndRemovesALab() {
        CliRun.Result up = CliRun.run("lab", "up", "--switchless", "--prefix", prefix);
        assertThat(up.exit()).as("stderr: %s", up.err()).isZero();
        assertThat(up.out()).contains("lab " + prefix + " is up: switchless, 2 hosts, 2 adapters each")
                .containsPattern("h1 +" + prefix + "-h1 +a1 +10\\.77\\.1\\.1/24 +h2\\.a1")
                .containsPattern("h2 +" + prefix + "-h2 +a2 +10\\.77\\.2\\.2/24 +h1\\.a2");

        CliRun.Result fail = CliRun.run("lab", "fail", "--prefix", prefix, "h1.a1-h2.a1");
        assertThat(fail.out()).isEqualTo("failed h1.a1-h2.a1: cable cut (" + prefix + "-h1 a1 down, " + prefix + "-h2 a1 down)\n");
        assertThat(CliRun.run("lab", "status", "--prefix", prefix).out())
                .containsPattern(prefix + "-h1 +a1 +down +DOWN +10\\.77\\.1\\.1/24")
                .containsPattern(prefix + "-h2 +a2 +up +UP +10\\.77\\.2\\.2/24");

        assertThat(CliRun.usageError("lab", "fail", "--prefix", prefix, "switch1"))
                .startsWith("switch1: lab " + prefix + " is switchless: it has no switches (switchless, 2 hosts, 2 adapters each);"
                        + " valid targets: h1.a1, h1.a2, h2.a1, h2.a2, h1.a1-h2.a1, h1.a2-h2.a2");
        assertThat(CliRun.usageError("lab", "heal", "--prefix", prefix, "h3.a1")).startsWith("h3.a1: lab " + prefix + " has no h3.a1");

        CliRun.Result heal = CliRun.run("lab", "heal", "--prefix", prefix, "h1.a1-h2.a1");
        assertThat(heal.exit()).as("stderr: %s", heal.err()).isZero();
        assertThat(CliRun.run("lab", "status", "--prefix", prefix).out()).doesNotContain("down").doesNotContain("no carrier");

        CliRun.Result down = CliRun.run("lab", "down", "--prefix", prefix);
        assertThat(down.out()).isEqualTo("lab " + prefix + " is down: deleted " + prefix + "-h1, " + prefix + "-h2\n");
        CliRun.Result gone = CliRun.run("lab", "status", "--prefix", prefix);
        assertThat(gone.exit()).isEqualTo(1);
        assertThat(gone.err()).isEqualTo("tandem lab status: error: there is no lab " + prefix + ": 'tandem lab up --prefix " + prefix
                + "' builds one\n");
    }
}
