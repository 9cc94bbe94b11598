package dev.tandem.tools.system;

import dev.tandem.failover.FailoverConfig;
import dev.tandem.failover.FailoverDevice;
import dev.tandem.failover.FailoverEvent;
import dev.tandem.failover.FailoverWatch;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasConfig;
import dev.tandem.tools.CliRun;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static dev.tandem.tools.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fail-over device in this process fails over, and {@code tandem stat}, {@code errors}, {@code trace}
 * and {@code dump} show it from its RAS file: the fail-over counters as their own type, the cause in the
 * error log, the {@code failover} trace component, and the device's adapters and connection in a dump.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailoverOutsideViewTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String PID = String.valueOf(ProcessHandle.current().pid());

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        assertThat(ProcessRas.current()).as("the devices released the process's RAS file").isNull();
        ProcessRas.configure(RasConfig.defaults());
    }

    private <T extends AutoCloseable> T keep(T resource) {
        open.add(resource);
        return resource;
    }

    @Test
    void statErrorsTraceAndDumpShowTheFailOverDevice(@TempDir Path dir) throws Exception {
        ProcessRas.configure(RasConfig.defaults().withDir(dir).withDutyIntervalMs(5));
        FailoverDevice a = keep(FailoverDevice.open(FailoverConfig.of("a", List.of("iwarp://127.0.1.61", "iwarp://127.0.2.61"))));
        FailoverDevice b = keep(FailoverDevice.open(FailoverConfig.of("b", List.of("iwarp://127.0.1.62", "iwarp://127.0.2.62"))));
        QueuePair qa = queuePair(a);
        QueuePair qb = queuePair(b);
        Listener l = keep(b.listen(new InetSocketAddress("127.0.1.62", 0), 4));
        CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
            ConnectionRequest r = l.accept(WAIT);
            r.accept(qb, new byte[0]);
        });
        qa.connect(l.localAddress(), new byte[0], WAIT);
        accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        FailoverWatch watch = keep(a.watch());
        ((AdapterControl) a.adapters().get(0)).injectFatalError("tools test: adapter 0 pulled");
        awaitMigrated(watch);
        String d = dir.toString();
        String dev = Pattern.quote(a.name());

        CliRun.Result stat = run("stat", "--dir", d, "--pid", PID, "--type", "failover");
        assertThat(stat.exit()).as(stat.err()).isZero();
        assertThat(stat.out()).as("the fail-over counters, typed failover, and only they")
                .containsPattern("(?m)^ +\\d* +failover +1  " + dev + " fail-overs$")
                .containsPattern("(?m)^ +\\d* +failover +1  " + dev + " fail-overs adapter fatal$")
                .containsPattern("(?m)^ +\\d* +failover +0  " + dev + " fail-overs link down$")
                .containsPattern("(?m)^ +\\d* +failover +1  " + dev + " paths down$")
                .containsPattern("(?m)^ +\\d* +failover +1  " + dev + " sessions moved$")
                .containsPattern("(?m)^ +\\d* +failover +[1-9]\\d*  " + dev + " pause max ns$")
                .containsPattern("(?m)^ +\\d* +failover +0  " + Pattern.quote(b.name()) + " no path left$")
                .doesNotContain("iwarp0@");

        CliRun.Result errors = run("errors", "--dir", d, "--pid", PID);
        assertThat(errors.exit()).as(errors.err()).isZero();
        assertThat(errors.out()).contains(a.name() + ": path down (adapter fatal): adapter # failed: ")
                .contains("tools test: adapter # pulled");

        CliRun.Result trace = run("trace", "--dir", d, "--pid", PID);
        assertThat(trace.exit()).as(trace.err()).isZero();
        assertThat(trace.out()).as("the failover component at the default level").containsPattern("(?m)^\\s*failover +1 +error\\s*$");
        CliRun.Result records = run("trace", "--dir", d, "--pid", PID, "--records");
        assertThat(records.out()).as("a path down is an error: traced at the default level")
                .containsPattern("(?m)^.*\\bfailover +1 +path-dn +.*adapter 0 failed: .*$");

        CliRun.Result dump = run("dump", "--pid", PID, "--dir", d, "--timeout", "30s");
        assertThat(dump.exit()).as(dump.err()).isZero();
        CliRun.Result decoded = run("dump", "--decode", dump.out().strip());
        assertThat(decoded.exit()).as(decoded.err()).isZero();
        assertThat(decoded.out())
                .containsPattern("(?m)^  failover device " + dev + "$")
                .containsPattern("(?m)^    adapter 0\\R      name +iwarp\\d+@127\\.0\\.1\\.61\\R(.*\\R){2}      usable +no\\R"
                        + "      released +yes")
                .containsPattern("(?m)^    connection qp " + qa.qpNumber() + "$")
                // paths are named by id (connecting adapter x 8 + accepting adapter): a's adapter 0 holds 0 and 1, adapter 1 holds 8 and 9
                .containsPattern("(?m)^      send path +(8|9)$")
                .containsPattern("(?m)^      last reliably sent msgid +0$")
                .containsPattern("(?m)^      sends +flowing$")
                .containsPattern("(?m)^      path 0\\R        adapter +0\\R(.*\\R){2}        status +dead")
                .containsPattern("(?m)^      path (8|9)\\R        adapter +1\\R(.*\\R){2}        status +live\\R        carries +sends")
                .containsPattern("(?m)^  " + dev + "\\R(.*\\R)*? +1  fail-overs adapter fatal$");
    }

    private QueuePair queuePair(FailoverDevice d) {
        ProtectionDomain pd = keep(d.allocateProtectionDomain());
        CompletionQueue cq = keep(d.createCompletionQueue(16));
        return keep(pd.createQueuePair(QueuePairConfig.of(cq).withDepths(8, 8)));
    }

    private static void awaitMigrated(FailoverWatch watch) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<FailoverEvent> seen = new ArrayList<>();
        while (seen.stream().noneMatch(e -> e instanceof FailoverEvent.Migrated)) {
            assertThat(System.nanoTime()).as("the connection migrated off the failed adapter: %s", seen).isLessThan(deadline);
            FailoverEvent e = watch.poll(Duration.ofMillis(50));
            if (e != null) {
                seen.add(e);
            }
        }
    }
}
