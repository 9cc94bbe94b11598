package dev.tandem.iwarp.wire;

import dev.tandem.iwarp.wire.TransmitWire.Frame;
import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.DumpReader;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.ras.SnapshotNode;
import dev.tandem.ras.Trace;
import dev.tandem.ras.TraceLevel;
import dev.tandem.ras.TraceRecord;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator sees of a QP's transmit side without a debugger: the dump's session state
 * (next MSNs, whether output waits for socket space), the engine's working-cycle counter, and the
 * level 8 trace of every sealed FPDU, each checked against what the raw peer read off the wire.
 * Also what a peer that stops reading does to the QP: its output waits, nothing is lost or reordered.
 */
@Timeout(120)
class TransmitterServiceabilityTest {
    private static final String TANDEM_IP = "127.0.1.134";
    private static final String RAW_IP = "127.0.1.135";
    private static final int PEER_RKEY = 0x0BAD_F00D;

    /** The session group of the only QP of {@code w}'s adapter in a fresh dump. */
    private static List<SnapshotNode> session(TransmitWire w) {
        SnapshotNode.Group qp = qp(w);
        return groups(qp, "session").stream().findFirst()
                .orElseThrow(() -> new AssertionError("no session of the connected QP in the dump: " + qp)).children();
    }

    /** The group of the only QP of {@code w}'s adapter in a fresh dump. */
    private static SnapshotNode.Group qp(TransmitWire w) {
        Path dump = ProcessRas.dump("test: transmitter session");
        try (DumpReader reader = DumpReader.open(dump)) {
            SnapshotNode.Group adapter = reader.tree().stream()
                    .filter(n -> n instanceof SnapshotNode.Group g && g.kind().equals("adapter") && g.name().equals(w.device.name()))
                    .map(SnapshotNode.Group.class::cast).findFirst()
                    .orElseThrow(() -> new AssertionError("no adapter " + w.device.name() + " in the dump"));
            return groups(adapter, "qp").stream().findFirst()
                    .orElseThrow(() -> new AssertionError("no QP in the dump of " + w.device.name() + ": " + adapter));
        } finally {
            try {
                Files.deleteIfExists(dump);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static List<SnapshotNode.Group> groups(SnapshotNode.Group g, String kind) {
        return g.children().stream().filter(n -> n instanceof SnapshotNode.Group c && c.kind().equals(kind))
                .map(SnapshotNode.Group.class::cast).toList();
    }

    private static Optional<SnapshotNode> field(List<SnapshotNode> fields, String key) {
        return fields.stream().filter(n -> switch (n) {
            case SnapshotNode.LongField f -> f.key().equals(key);
            case SnapshotNode.TextField f -> f.key().equals(key);
            default -> false;
        }).findFirst();
    }

    private static long number(List<SnapshotNode> fields, String key) {
        return field(fields, key).map(n -> ((SnapshotNode.LongField) n).value())
                .orElseThrow(() -> new AssertionError("no number '" + key + "' in " + fields));
    }

    private static String text(List<SnapshotNode> fields, String key) {
        return field(fields, key).map(n -> ((SnapshotNode.TextField) n).value())
                .orElseThrow(() -> new AssertionError("no text '" + key + "' in " + fields));
    }

    private static long counter(String label) {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return reader.counters().stream().filter(c -> c.label().equals(label)).mapToLong(CounterSnapshot::value).sum();
        }
    }

    @Test
    void aDumpShowsTheNextMsnsAndThatAQpWaitingForOrdHasNoOutputPending() {
        try (TransmitWire w = new TransmitWire(TANDEM_IP, RAW_IP, true, 128, 1, 4, c -> c)) {
            List<SnapshotNode> fresh = session(w);
            assertThat(number(fresh, "next send msn")).isEqualTo(1);
            assertThat(number(fresh, "next read request msn")).isEqualTo(1);
            assertThat(text(fresh, "pending output")).as("a fresh, idle QP").isEqualTo("false");
            w.qp.postReceive(new dev.tandem.verbs.ReceiveRequest(7, new Sge(w.region, 40_000, 64)));
            w.qp.postReceive(new dev.tandem.verbs.ReceiveRequest(8, new Sge(w.region, 40_064, 64)));
            assertThat(number(qp(w).children(), "receives posted")).isEqualTo(2);

            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, 8), WrFlags.SIGNALED));
            w.qp.postSend(new WorkRequest.Send(2, new Sge(w.region, 0, 8), WrFlags.SIGNALED));
            w.qp.postSend(new WorkRequest.RdmaRead(3, new Sge(w.region, 0, 8), 0, PEER_RKEY, WrFlags.SIGNALED));
            w.qp.postSend(new WorkRequest.RdmaRead(4, new Sge(w.region, 0, 8), 0, PEER_RKEY, WrFlags.SIGNALED)); // held: ORD 1
            w.next("Send 1");
            w.next("Send 2");
            Frame read = w.next("the first Read Request");
            assertThat(w.completion("Send 1").wrId()).isEqualTo(1);
            assertThat(w.completion("Send 2").wrId()).isEqualTo(2);
            List<SnapshotNode> waiting = session(w);
            assertThat(number(waiting, "next send msn")).isEqualTo(3);
            assertThat(number(waiting, "next read request msn")).isEqualTo(2);
            assertThat(number(waiting, "outstanding reads (of ord)")).isEqualTo(1);
            assertThat(text(waiting, "pending output")).as("a Read held by ORD is not output waiting for the socket").isEqualTo("false");

            w.peerResponds(read.fpdu().readRequest(), TransmitWire.pattern(8, 1));
            Frame second = w.next("the second Read Request");
            w.peerResponds(second.fpdu().readRequest(), TransmitWire.pattern(8, 2));
            assertThat(w.completion("Read 3").wrId()).isEqualTo(3);
            assertThat(w.completion("Read 4").wrId()).isEqualTo(4);
            List<SnapshotNode> done = session(w);
            assertThat(number(done, "next read request msn")).isEqualTo(3);
            assertThat(text(done, "pending output")).as("a QP with all its work done").isEqualTo("false");
        }
    }

    /**
     * 16 MiB of Writes to a peer that reads nothing cannot all leave (socket buffers hold a few MiB
     * at most): the output waits, and the dump says so. Once the peer reads, every FPDU arrives
     * whole, in order, with the right TO and payload; the Writes complete in order; and the engine,
     * which alone carried the rest, counts the cycles in which it wrote as working cycles.
     */
    @Test
    void aPeerThatStopsReadingHoldsTheOutputAndNothingIsLostWhenItReadsAgain() {
        int writes = 256;
        int size = TransmitWire.REGION_LENGTH;
        try (TransmitWire w = new TransmitWire(TANDEM_IP, RAW_IP, true, 65_000, 4, 4, c -> c.withDepths(writes, 4))) {
            w.fill(0, size, 17);
            for (int i = 0; i < writes; i++) {
                w.qp.postSend(new WorkRequest.RdmaWrite(i, new Sge(w.region, 0, size), (long) i * size, PEER_RKEY, WrFlags.SIGNALED));
            }
            assertThat(text(session(w), "pending output")).as("16 MiB posted, none read").isEqualTo("true");
            String workingCycles = w.device.engineThreadName() + " working cycles";
            long before = counter(workingCycles);

            byte[] expected = w.bytes(0, size);
            long to = 0;
            int m = w.maxTaggedPayload();
            for (int i = 0; i < writes; i++) {
                List<Frame> frames = w.message("Write " + i);
                assertThat(frames).as("Write %d", i).hasSize((size + m - 1) / m);
                for (Frame f : frames) {
                    assertThat(f.fpdu().opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
                    assertThat(f.fpdu().to()).as("TO of %s in Write %d", f, i).isEqualTo(to);
                    int at = (int) (to - (long) i * size);
                    byte[] payload = f.payload();
                    for (int k = 0; k < payload.length; k++) {
                        if (payload[k] != expected[at + k]) {
                            throw new AssertionError("Write " + i + " byte " + (at + k) + " is " + payload[k] + ", expected " + expected[at + k]);
                        }
                    }
                    to += payload.length;
                }
            }
            long deadline = System.nanoTime() + TransmitWire.WAIT.toNanos();
            while (counter(workingCycles) <= before) {
                assertThat(System.nanoTime() - deadline).as("'%s' still %d after the engine wrote the rest", workingCycles, before).isNegative();
                Thread.onSpinWait();
            }
            for (int i = 0; i < writes; i++) {
                WorkCompletion wc = w.completion("Write " + i);
                assertThat(wc.wrId()).isEqualTo(i);
                assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wc.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
            }
        }
    }

    @Test
    void level8TracesEverySealedFpduWithTheUlpduLengthAndCrcThatWentOnTheWire() {
        try (TransmitWire w = new TransmitWire(TANDEM_IP, RAW_IP, true, 128, 4, 4, c -> c)) {
            Trace trace = ProcessRas.current().trace(); // open while an adapter is
            List<Frame> sent = new ArrayList<>();
            long since = trace.records().stream().mapToLong(TraceRecord::sequence).max().orElse(-1);
            try {
                trace.setLevel("iwarp.tx", TraceLevel.HOT_INTERNALS);
                w.fill(0, 300, 3);
                w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, 233), WrFlags.SIGNALED));
                sent.addAll(w.message("a Send of 233 bytes"));
                w.peerReads(0x00AB_0005, 0, 131, 0);
                sent.addAll(w.message("the Response to a Read of 131 bytes"));
                // a Send with MSN 5 as the peer's first: Tandem answers with a Terminate quoting its header
                w.peerSends(5, TransmitWire.pattern(9, 1));
                Frame terminate = w.next("the Terminate for MSN 5");
                assertThat(terminate.fpdu().opcode()).isEqualTo(RdmapOpcode.TERMINATE);
                assertThat(terminate.fpdu().terminate().code()).isEqualTo(TerminateCode.DDP_UNTAGGED_MSN_RANGE);
                sent.add(terminate);
            } finally {
                trace.setLevel("iwarp.tx", TraceLevel.ERROR);
            }
            List<TraceRecord> seals = trace.records().stream()
                    .filter(r -> r.sequence() > since && r.event().equals("tx-seal") && r.a() == w.qp.qpNumber()).toList();
            List<List<Long>> traced = seals.stream().map(r -> List.of(r.b(), r.c(), r.d())).toList();
            List<List<Long>> wire = sent.stream()
                    .map(f -> List.of((long) f.fpdu().opcode(), (long) f.fpdu().ulpduLength(), f.fpdu().crc() & 0xFFFF_FFFFL)).toList();
            assertThat(traced).as("tx-seal records (opcode, ULPDU length, CRC) of QP %d", w.qp.qpNumber()).containsSubsequence(wire);
            assertThat(traced).as("one tx-seal per FPDU").hasSize(wire.size());
        }
    }
}
