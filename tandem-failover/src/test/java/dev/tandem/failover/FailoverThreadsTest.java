package dev.tandem.failover;

import dev.tandem.verbs.AdapterControl;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every thread of a fail-over device is named after it and stops when it closes: the monitor, the
 * pumps, the healer, the join threads where paths join, and an application listener's accept threads
 * (also those started again for an adapter that came back after a reset).
 */
class FailoverThreadsTest {
    private static Set<String> threadsOf(String device) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("tandem-failover-") && n.contains(device + "-") || n.endsWith(device))
                .collect(Collectors.toSet());
    }

    @Test
    void everyThreadIsNamedAfterItsDeviceAndStopsWhenTheDeviceCloses() throws Exception {
        String a;
        String b;
        try (TwoNodes n = new TwoNodes(2, Topology.SWITCHED)) {
            a = n.a.name();
            b = n.b.name();
            n.b.listen(new InetSocketAddress("127.0.1.2", 0), 1); // left open: the device closes it
            n.stream(100, 50, () -> ((AdapterControl) n.b.adapters().get(1)).injectFatalError("test: an adapter to reset"));
            ((AdapterControl) n.b.adapters().get(1)).reset(Duration.ofSeconds(5));
            n.awaitAllPaths();
            assertThat(threadsOf(a)).as("node a's threads").contains("tandem-failover-monitor-" + a, "tandem-failover-cq-" + a,
                    "tandem-failover-healer-" + a, "tandem-failover-events-" + a + "-0", "tandem-failover-events-" + a + "-1");
            assertThat(threadsOf(b)).as("node b's threads, its listener's and the join threads among them")
                    .contains("tandem-failover-accept-" + b + "-0", "tandem-failover-accept-" + b + "-1",
                            "tandem-failover-join-" + b + "-0", "tandem-failover-join-" + b + "-1");
        }
        for (String d : List.of(a, b)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!threadsOf(d).isEmpty()) {
                assertThat(System.nanoTime()).as("threads of %s still alive after close: %s", d, threadsOf(d)).isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
    }
}
