package dev.tandem.failover;

import dev.tandem.verbs.PortState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RAS counts each fail-over under its cause: the state of the adapter it moves off decides first (a
 * connection often sees its QP fail before the monitor handles the adapter's event), then the wording
 * the monitor and the connections give their events.
 */
class FailoverCauseTest {

    @Test
    void theAdapterThatFailedOrLostItsLinkNamesTheCauseWhateverTheQpSaid() {
        assertThat(FailoverCause.of(PortState.FATAL, "connection lost: Connection reset")).isEqualTo(FailoverCause.ADAPTER_FATAL);
        assertThat(FailoverCause.of(PortState.DOWN, "connection lost: Connection reset")).isEqualTo(FailoverCause.LINK_DOWN);
        assertThat(FailoverCause.of(PortState.ACTIVE, "connection lost: Connection reset")).isEqualTo(FailoverCause.CONNECTION_LOST);
        assertThat(FailoverCause.of(null, null)).isEqualTo(FailoverCause.CONNECTION_LOST);
    }

    @Test
    void theMonitorsAndTheConnectionsWordingTellsTheRest() {
        assertThat(FailoverCause.of("adapter 2 failed: injected: PCI error")).isEqualTo(FailoverCause.ADAPTER_FATAL);
        assertThat(FailoverCause.of("adapter 1 lost its link: link of adapter iwarp1@127.0.2.1 down (injected)"))
                .isEqualTo(FailoverCause.LINK_DOWN);
        assertThat(FailoverCause.of("silent link: no heartbeat answered on adapter 0 for 151 ms")).isEqualTo(FailoverCause.LINK_DOWN);
        assertThat(FailoverCause.of("the peer moved the connection off this path (to its adapter 1)")).isEqualTo(FailoverCause.PEER_MOVED);
        assertThat(FailoverCause.of("the new path failed while the REPORT went out: QP 3 is in ERROR"))
                .isEqualTo(FailoverCause.CONNECTION_LOST);
        assertThat(FailoverCause.of("adapter 1 failedness")).as("only the monitor's exact wording").isEqualTo(FailoverCause.CONNECTION_LOST);
    }

    @Test
    void theErrorLogTellsCausesApartByWordsNotNumbers() {
        assertThat(FailoverRas.distinct("silent link: no heartbeat answered on adapter 0 for 151 ms, key 0x1F"))
                .isEqualTo("silent link: no heartbeat answered on adapter # for # ms, key 0x#");
        assertThat(FailoverRas.numberOf("failover12@node-7")).isEqualTo(12);
        assertThat(FailoverRas.numberOf("something else")).isZero();
    }
}
