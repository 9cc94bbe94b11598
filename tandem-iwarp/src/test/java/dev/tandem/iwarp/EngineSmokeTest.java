package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

class EngineSmokeTest {

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void sendWriteReadAndAccessViolation(boolean crc) throws Exception {
        int size = 1 << 20;
        try (LoopbackPair p = new LoopbackPair(c -> c.withCrc(crc), size)) {
            assertThat(p.qpA.state()).isEqualTo(QpState.RTS);
            // Send / Recv
            p.qpB.postReceive(new ReceiveRequest(7, new Sge(p.mrB, 0, 4096)));
            for (int i = 0; i < 100; i++) {
                p.mrA.segment().set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 100), WrFlags.SIGNALED));
            WorkCompletion s = LoopbackPair.awaitOne(p.cqA);
            assertThat(s.status()).isEqualTo(CompletionStatus.SUCCESS);
            WorkCompletion r = LoopbackPair.awaitOne(p.cqB);
            assertThat(r.status()).as(r.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.wrId()).isEqualTo(7);
            assertThat(r.opcode()).isEqualTo(CompletionOpcode.RECV);
            assertThat(r.byteLength()).isEqualTo(100);
            assertThat(p.mrB.segment().get(ValueLayout.JAVA_BYTE, 99)).isEqualTo((byte) 99);

            // 1 MiB RDMA Write, then read it back with an RDMA Read
            for (int i = 0; i < size; i += 8) {
                p.mrA.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 31L);
            }
            p.qpA.postSend(new WorkRequest.RdmaWrite(2, new Sge(p.mrA, 0, size), 0, p.mrB.rkey(), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.SUCCESS);
            p.mrA.segment().fill((byte) 0);
            p.qpA.postSend(new WorkRequest.RdmaRead(3, new Sge(p.mrA, 0, size), 0, p.mrB.rkey(), WrFlags.SIGNALED));
            WorkCompletion rd = LoopbackPair.awaitOne(p.cqA);
            assertThat(rd.status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(rd.opcode()).isEqualTo(CompletionOpcode.RDMA_READ);
            for (int i = 0; i < size; i += 8) {
                assertThat(p.mrA.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, i)).isEqualTo(i * 31L);
            }

            // RDMA Read with a wrong key: Terminate, REM_ACCESS_ERR, both QPs in ERROR
            int badRkey = p.mrB.rkey() ^ 0x5A;
            p.qpA.postSend(new WorkRequest.RdmaRead(4, new Sge(p.mrA, 0, 64), 0, badRkey, WrFlags.SIGNALED));
            WorkCompletion bad = LoopbackPair.awaitOne(p.cqA);
            assertThat(bad.wrId()).isEqualTo(4);
            assertThat(bad.status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
            assertThat(TerminateCode.fromBits(bad.vendorError())).isEqualTo(TerminateCode.RDMAP_INVALID_STAG);
            assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
            WorkRequest.Send afterError = new WorkRequest.Send(5, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.qpA.postSend(afterError))
                    .as("the first post after the Terminate reports it")
                    .isInstanceOf(dev.tandem.verbs.AsyncErrorException.class).hasMessageContaining("RDMAP_INVALID_STAG");
            p.qpA.postSend(afterError);
            WorkCompletion flushed = LoopbackPair.awaitOne(p.cqA);
            assertThat(flushed.wrId()).isEqualTo(5);
            assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
            AsyncEvent ev = LoopbackPair.awaitFailureEvent(p.b, "async event on the responder");
            assertThat(ev.type()).isEqualTo(AsyncEventType.QP_ACCESS_ERROR);
            assertThat(p.qpB.state()).isEqualTo(QpState.ERROR);
        }
    }
}
