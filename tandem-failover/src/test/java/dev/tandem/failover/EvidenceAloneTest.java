package dev.tandem.failover;

import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.LinkControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fault is found by several kinds of evidence (the adapter's events, the path's QP errors, the peer's
 * REPORT, heartbeats); each is enough alone. With heartbeats too slow to matter, a connection still moves
 * at once on the others, with nothing lost, twice or out of order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EvidenceAloneTest {
    private static final int MESSAGES = 200;
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    /** Nodes whose heartbeats would find a silent path only after 20 minutes. */
    private static TwoNodes withoutHeartbeats() throws Exception {
        return new TwoNodes(2, Topology.SWITCHED, c -> c.withHeartbeat(Duration.ofSeconds(10), 120));
    }

    @Test
    void theConnectionsOfItsPathResetMoveTheConnection() throws Exception {
        nodes = withoutHeartbeats();
        int k = nodes.sa.failover().sendAdapter();
        nodes.stream(MESSAGES, MESSAGES / 2, ((LinkControl) nodes.a.adapters().get(k))::resetConnections);
        assertThat(nodes.sa.failover().sendAdapter()).as("a's Sends left the adapter whose connections were reset").isEqualTo(1 - k);
    }

    @Test
    void theAdaptersLinkGoingDownMovesTheConnection() throws Exception {
        nodes = withoutHeartbeats();
        int k = nodes.sa.failover().sendAdapter();
        nodes.stream(MESSAGES, MESSAGES / 2, ((LinkControl) nodes.a.adapters().get(k))::linkDown);
        assertThat(nodes.sa.failover().sendAdapter()).as("a's Sends left the adapter whose link went down").isEqualTo(1 - k);
    }

    @Test
    void thePeersAdapterFatalErrorMovesTheConnection() throws Exception {
        nodes = withoutHeartbeats();
        int k = nodes.sb.failover().receivePathAdapter();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) nodes.b.adapters().get(k)).injectFatalError("test: b's adapter"));
        assertThat(nodes.sb.failover().receivePathAdapter()).as("b's receives left its failed adapter").isEqualTo(1 - k);
    }
}
