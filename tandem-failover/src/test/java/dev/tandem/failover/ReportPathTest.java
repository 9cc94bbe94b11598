package dev.tandem.failover;

import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.QpState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What this side tells its peer goes over a path whose QP runs. While the peer's close of a's receive path
 * waits out the wait for its BYE, that path is still up, but its QP ended: a REPORT written there is flushed
 * and written again at once. A REPORT a backup's loss calls for then goes another way, once, not thousands
 * of times over the dead path until the wait is over (which flooded the event stream and lost its end).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReportPathTest {
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void aReportGoesOnceOverARunningPathWhileThePeersCloseOfTheReceivePathAwaitsItsBye() throws Exception {
        nodes = new TwoNodes(3, Topology.SWITCHED);
        nodes.stream(20, 20, () -> { });
        FailoverQueuePair qa = nodes.sa.failover();
        FailoverQueuePair qb = nodes.sb.failover();
        Path receive = qa.paths.receivePath();
        Path bSends = qb.paths.sendPath();
        int spare = spareAdapter(qa);
        assertThat(spare).as("an adapter of a that carries neither its Sends nor its receives").isNotNegative();

        FailoverWatch wa = nodes.a.watch();
        bSends.qp.disconnect(); // b's end of a's receive path closes in order, with no BYE: a waits for one
        Opened.await("a's receive path closed by the peer, waiting for a BYE", () -> receive.closedQp != null);
        assertThat(receive.up).as("the path stays up while a waits for the BYE").isTrue();
        ((AdapterControl) nodes.a.adapters().get(spare)).injectFatalError("test: a's spare adapter, while the BYE wait runs");
        Opened.await("a's receive path failed once the wait for a BYE was over", () -> !receive.up);

        List<FailoverEvent> told = TwoNodes.events(wa);
        assertThat(wa.dropped()).as("events the watch had to drop").isZero();
        List<FailoverEvent> reports = told.stream().filter(e -> e instanceof FailoverEvent.Reported).toList();
        // one per path lost (the spare adapter's 3, then the receive path) and the move's: 4 or 5 here; written over the
        // waiting path, each comes back flushed and goes again (11 in every run before)
        assertThat(reports.size()).as("REPORTs a wrote in the wait (told: %s)", told).isBetween(1, 7);
        assertThat(qa.mail().lastReportVia).as("the path the last REPORT went over").isNotSameAs(receive);
        assertThat(qa.state()).as("a's connection").isNotEqualTo(QpState.ERROR);
    }

    /** An adapter of {@code qp}'s side that neither its send path nor its receive path starts from; -1 when none. */
    private static int spareAdapter(FailoverQueuePair qp) {
        for (int k = 0; k < 3; k++) {
            if (k != qp.paths.sendPath().local && k != qp.paths.receivePath().local) {
                return k;
            }
        }
        return -1;
    }
}
