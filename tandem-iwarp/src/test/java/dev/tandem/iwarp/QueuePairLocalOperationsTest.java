package dev.tandem.iwarp;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import dev.tandem.iwarp.wire.TerminateCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binds, Local Invalidates and a peer's Send with Invalidate: every rule that refuses one, each
 * on its own connection (a refused local operation fails the QP), and what a refusal leaves
 * behind: the window unbound or still bound, the region still valid.
 */
@Timeout(60)
class QueuePairLocalOperationsTest {
    private static final Duration WAIT = LoopbackPair.WAIT;
    private static final int READ = Access.REMOTE_READ;
    /** Index 0x7FFFFF lies beyond the adapter's STag table: no region or window has it. */
    private static final int UNKNOWN_STAG = 0x7FFF_FF00;

    /** A second connected QP pair between the pair's adapters, in the pair's PDs. */
    private record Second(QueuePair a, QueuePair b, CompletionQueue cqA, CompletionQueue cqB) implements AutoCloseable {
        static Second connect(LoopbackPair p) throws Exception {
            CompletionQueue cqA = p.a.createCompletionQueue(16);
            CompletionQueue cqB = p.b.createCompletionQueue(16);
            QueuePair a = p.pdA.createQueuePair(QueuePairConfig.of(cqA));
            QueuePair b = p.pdB.createQueuePair(QueuePairConfig.of(cqB));
            p.connect(a, b);
            return new Second(a, b, cqA, cqB);
        }

        @Override
        public void close() {
            a.close();
            b.close();
            cqA.close();
            cqB.close();
        }
    }

    private static WorkCompletion bind(QueuePair qp, CompletionQueue cq, MemoryWindow w, MemoryRegion r, long offset, long length, int access) {
        qp.postSend(new WorkRequest.BindWindow(7, w, r, offset, length, access, 0x42, WrFlags.SIGNALED));
        return LoopbackPair.awaitOne(cq);
    }

    private static AsyncEvent awaitEvent(IwarpDevice device, Object resource, AsyncEventType type) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            AsyncEvent e = left > 0 ? device.pollAsyncEvent(Duration.ofNanos(left)) : null;
            if (e == null) {
                throw new AssertionError("no " + type + " about " + resource + " within " + WAIT);
            }
            if (e.resource() == resource && e.type() == type) {
                return e;
            }
        }
    }

    /** A bind the adapter refuses when it runs (the post itself is taken). */
    enum RefusedBind {
        WINDOW_CLOSED,
        REGION_DEREGISTERED,
        REGION_OF_ANOTHER_PD,
        WINDOW_ALREADY_BOUND,
        NEGATIVE_OFFSET,
        NEGATIVE_LENGTH,
        REMOTE_WRITE_ON_A_REGION_WITHOUT_LOCAL_WRITE
    }

    @ParameterizedTest
    @EnumSource(RefusedBind.class)
    void aBindTheRulesForbidCompletesWithMwBindErrLeavesTheWindowAloneAndFailsTheQp(RefusedBind c) throws Exception {
        try (LoopbackPair p = new LoopbackPair(x -> x, 8192);
             ProtectionDomain otherPd = p.a.allocateProtectionDomain();
             MemoryRegion foreign = otherPd.registerMemory(p.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.MW_BIND);
             MemoryRegion readOnly = p.pdA.registerMemory(p.arena.allocate(4096, 64), Access.REMOTE_READ | Access.MW_BIND)) {
            MemoryRegion doomed = p.pdA.registerMemory(p.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.MW_BIND);
            MemoryWindow w = p.pdA.allocateMemoryWindow();
            try {
                refusedBind(p, c, foreign, readOnly, doomed, w);
            } finally {
                w.close();
                doomed.close();
            }
        }
    }

    private static void refusedBind(LoopbackPair p, RefusedBind c, MemoryRegion foreign, MemoryRegion readOnly, MemoryRegion doomed,
                                    MemoryWindow w) {
        MemoryRegion region = p.mrA;
        long offset = 0;
        long length = 4096;
        int access = READ;
        switch (c) {
            case WINDOW_CLOSED -> w.close();
            case REGION_DEREGISTERED -> {
                doomed.close();
                region = doomed;
            }
            case REGION_OF_ANOTHER_PD -> region = foreign;
            case WINDOW_ALREADY_BOUND -> {
                WorkCompletion first = bind(p.qpA, p.cqA, w, p.mrA, 0, 64, READ);
                assertThat(first.status()).as("the first bind: " + first).isEqualTo(CompletionStatus.SUCCESS);
            }
            case NEGATIVE_OFFSET -> offset = -1;
            case NEGATIVE_LENGTH -> length = -1;
            case REMOTE_WRITE_ON_A_REGION_WITHOUT_LOCAL_WRITE -> {
                region = readOnly;
                access = Access.REMOTE_WRITE;
            }
        }
        int keyBefore = w.rkey();
        boolean boundBefore = w.isBound();
        WorkCompletion wc = bind(p.qpA, p.cqA, w, region, offset, length, access);
        assertThat(wc.status()).as(c + ": " + wc).isEqualTo(CompletionStatus.MW_BIND_ERR);
        assertThat(wc.opcode()).isEqualTo(CompletionOpcode.BIND_WINDOW);
        assertThat(wc.wrId()).isEqualTo(7);
        assertThat(w.isBound()).as("the window after a refused bind").isEqualTo(boundBefore);
        assertThat(w.rkey()).as("the window's STag after a refused bind").isEqualTo(keyBefore);
        assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
        awaitEvent(p.a, p.qpA, AsyncEventType.QP_FATAL);
    }

    @Test
    void aBindMayCoverTheWholeRegionWithRemoteWriteWhenTheRegionHasLocalWrite() throws Exception {
        try (LoopbackPair p = new LoopbackPair(x -> x, 8192);
             MemoryWindow w = p.pdA.allocateMemoryWindow()) {
            WorkCompletion wc = bind(p.qpA, p.cqA, w, p.mrA, 0, 8192, Access.REMOTE_WRITE | Access.REMOTE_READ);
            assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(CompletionOpcode.BIND_WINDOW);
            assertThat(w.isBound()).isTrue();
            // B writes the window's last byte
            p.mrB.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 77);
            p.qpB.postSend(new WorkRequest.RdmaWrite(8, new Sge(p.mrB, 0, 1), 8191, w.rkey(), WrFlags.SIGNALED));
            WorkCompletion write = LoopbackPair.awaitOne(p.cqB);
            assertThat(write.status()).isEqualTo(CompletionStatus.SUCCESS);
            p.qpB.postSend(new WorkRequest.RdmaRead(9, new Sge(p.mrB, 100, 1), 8191, w.rkey(), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqB).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(p.mrA.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 8191)).isEqualTo((byte) 77);
            assertThat(p.qpA.state()).isEqualTo(QpState.RTS);
        }
    }

    /** A Local Invalidate the adapter refuses. */
    enum RefusedInvalidate {
        UNKNOWN_STAG,
        WRONG_KEY,
        REGION_OF_ANOTHER_PD,
        WINDOW_BOUND_TO_ANOTHER_QP
    }

    @ParameterizedTest
    @EnumSource(RefusedInvalidate.class)
    void aLocalInvalidateTheRulesForbidCompletesWithLocProtErrAndInvalidatesNothing(RefusedInvalidate c) throws Exception {
        try (LoopbackPair p = new LoopbackPair(x -> x, 8192);
             ProtectionDomain otherPd = p.a.allocateProtectionDomain();
             MemoryRegion foreign = otherPd.registerMemory(p.arena.allocate(4096, 64), Access.LOCAL_WRITE);
             MemoryWindow w = p.pdA.allocateMemoryWindow();
             Second second = Second.connect(p)) {
            int stag = switch (c) {
                case UNKNOWN_STAG -> UNKNOWN_STAG;
                case WRONG_KEY -> p.mrA.lkey() ^ 0x01;
                case REGION_OF_ANOTHER_PD -> foreign.lkey();
                case WINDOW_BOUND_TO_ANOTHER_QP -> {
                    WorkCompletion b = bind(second.a(), second.cqA(), w, p.mrA, 0, 64, READ);
                    assertThat(b.status()).as(b.toString()).isEqualTo(CompletionStatus.SUCCESS);
                    yield w.rkey();
                }
            };
            p.qpA.postSend(new WorkRequest.LocalInvalidate(5, stag, WrFlags.SIGNALED));
            WorkCompletion wc = LoopbackPair.awaitOne(p.cqA);
            assertThat(wc.status()).as(c + ": " + wc).isEqualTo(CompletionStatus.LOC_PROT_ERR);
            assertThat(wc.opcode()).isEqualTo(CompletionOpcode.LOCAL_INVALIDATE);
            assertThat(p.mrA.isValid()).isTrue();
            assertThat(foreign.isValid()).isTrue();
            if (c == RefusedInvalidate.WINDOW_BOUND_TO_ANOTHER_QP) {
                assertThat(w.isBound()).as("a window bound to another QP stays bound").isTrue();
                // and the QP it is bound to may still invalidate it
                second.a().postSend(new WorkRequest.LocalInvalidate(6, w.rkey(), WrFlags.SIGNALED));
                assertThat(LoopbackPair.awaitOne(second.cqA()).status()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(w.isBound()).isFalse();
            }
            LoopbackPair.awaitState(p.qpA, QpState.ERROR, "the QP whose Local Invalidate was refused");
        }
    }

    @Test
    void aLocalInvalidateOfARegionMakesItsKeysInvalid() throws Exception {
        try (LoopbackPair p = new LoopbackPair(x -> x, 8192);
             MemoryRegion extra = p.pdA.registerMemory(p.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_READ)) {
            p.qpA.postSend(new WorkRequest.LocalInvalidate(5, extra.lkey(), WrFlags.SIGNALED));
            WorkCompletion wc = LoopbackPair.awaitOne(p.cqA);
            assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(CompletionOpcode.LOCAL_INVALIDATE);
            assertThat(extra.isValid()).isFalse();
            p.qpB.postSend(new WorkRequest.RdmaRead(6, new Sge(p.mrB, 0, 16), 0, extra.rkey(), WrFlags.SIGNALED));
            WorkCompletion read = LoopbackPair.awaitOne(p.cqB);
            assertThat(read.status()).as("a Read of the invalidated region: " + read).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
        }
    }

    /** Why a peer's Send with Invalidate is refused, and the Terminate that says so (as siw_invalidate_stag judges it). */
    enum RefusedRemoteInvalidate {
        UNKNOWN_STAG(TerminateCode.RDMAP_CANNOT_INVALIDATE),
        WRONG_KEY(TerminateCode.RDMAP_CANNOT_INVALIDATE),
        REGION_OF_ANOTHER_PD(TerminateCode.RDMAP_CANNOT_INVALIDATE_PROTECTION),
        WINDOW_BOUND_TO_ANOTHER_QP(TerminateCode.RDMAP_CANNOT_INVALIDATE_PROTECTION);

        final TerminateCode code;

        RefusedRemoteInvalidate(TerminateCode code) {
            this.code = code;
        }
    }

    @ParameterizedTest
    @EnumSource(RefusedRemoteInvalidate.class)
    void aSendWithInvalidateOfAnStagTheReceiverMayNotInvalidateFailsTheReceiveAndInvalidatesNothing(RefusedRemoteInvalidate c)
            throws Exception {
        try (LoopbackPair p = new LoopbackPair(x -> x, 8192);
             ProtectionDomain otherPd = p.b.allocateProtectionDomain();
             MemoryRegion foreign = otherPd.registerMemory(p.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
             MemoryRegion extra = p.pdB.registerMemory(p.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
             MemoryWindow w = p.pdB.allocateMemoryWindow();
             Second second = Second.connect(p)) {
            int stag = switch (c) {
                case UNKNOWN_STAG -> UNKNOWN_STAG;
                case WRONG_KEY -> extra.rkey() ^ 0x01;
                case REGION_OF_ANOTHER_PD -> foreign.rkey();
                case WINDOW_BOUND_TO_ANOTHER_QP -> {
                    WorkCompletion b = bind(second.b(), second.cqB(), w, p.mrB, 0, 64, READ);
                    assertThat(b.status()).as(b.toString()).isEqualTo(CompletionStatus.SUCCESS);
                    yield w.rkey();
                }
            };
            p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 1000, 64)));
            p.qpA.postSend(new WorkRequest.SendWithInvalidate(2, List.of(new Sge(p.mrA, 0, 16)), stag, WrFlags.SIGNALED));
            WorkCompletion wc = LoopbackPair.awaitOne(p.cqB);
            assertThat(wc.wrId()).isEqualTo(1);
            assertThat(wc.status()).as(c + ": " + wc).isEqualTo(CompletionStatus.REM_INV_REQ_ERR);
            assertThat(TerminateCode.fromBits(wc.vendorError())).as(c + ": " + wc).isEqualTo(c.code);
            assertThat(foreign.isValid()).isTrue();
            assertThat(p.mrB.isValid()).isTrue();
            if (c == RefusedRemoteInvalidate.WINDOW_BOUND_TO_ANOTHER_QP) {
                assertThat(w.isBound()).as("a window bound to another QP stays bound").isTrue();
            } else {
                assertThat(extra.isValid()).isTrue();
            }
            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "the receiver of the refused Send with Invalidate");
            LoopbackPair.awaitState(p.qpA, QpState.ERROR, "the sender of the refused Send with Invalidate");
        }
    }

    @Test
    void aSendWithInvalidateOfAWindowBoundToTheReceivingQpRevokesIt() throws Exception {
        try (LoopbackPair p = new LoopbackPair(x -> x, 8192);
             MemoryWindow w = p.pdB.allocateMemoryWindow()) {
            WorkCompletion b = bind(p.qpB, p.cqB, w, p.mrB, 0, 64, READ);
            assertThat(b.status()).isEqualTo(CompletionStatus.SUCCESS);
            p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 1000, 64)));
            p.qpA.postSend(new WorkRequest.SendWithInvalidate(2, List.of(new Sge(p.mrA, 0, 16)), w.rkey(), WrFlags.SIGNALED));
            WorkCompletion wc = LoopbackPair.awaitOne(p.cqB);
            assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(wc.invalidatedStag()).isEqualTo(w.rkey());
            assertThat(w.isBound()).isFalse();
            // unbound now: the window may be bound again, by this QP
            WorkCompletion again = bind(p.qpB, p.cqB, w, p.mrB, 64, 64, READ);
            assertThat(again.status()).as(again.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(w.isBound()).isTrue();
        }
    }

    /**
     * A window invalidated by the QP it was bound to, locally or by that QP's peer, is bound to no
     * QP any more: another QP of the PD may invalidate it again (the verbs allow invalidating an
     * invalid STag) or bind it.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"Local Invalidate", "the peer's Send with Invalidate"})
    void aWindowInvalidatedThroughItsQpIsNoLongerThatQpsAlone(String how) throws Exception {
        try (LoopbackPair p = new LoopbackPair(x -> x, 8192);
             Second other = Second.connect(p);
             MemoryWindow w = p.pdB.allocateMemoryWindow()) {
            assertThat(bind(p.qpB, p.cqB, w, p.mrB, 0, 64, READ).status()).isEqualTo(CompletionStatus.SUCCESS);
            if (how.equals("Local Invalidate")) {
                p.qpB.postSend(new WorkRequest.LocalInvalidate(3, w.rkey(), WrFlags.SIGNALED));
            } else {
                p.qpB.postReceive(new ReceiveRequest(3, new Sge(p.mrB, 1000, 64)));
                p.qpA.postSend(new WorkRequest.SendWithInvalidate(4, List.of(new Sge(p.mrA, 0, 16)), w.rkey(), WrFlags.SIGNALED));
            }
            WorkCompletion first = LoopbackPair.awaitOne(p.cqB);
            assertThat(first.status()).as(first.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(w.isBound()).isFalse();
            other.b().postSend(new WorkRequest.LocalInvalidate(5, w.rkey(), WrFlags.SIGNALED));
            WorkCompletion again = LoopbackPair.awaitOne(other.cqB());
            assertThat(again.status()).as("invalidated again through another QP after %s: %s", how, again)
                    .isEqualTo(CompletionStatus.SUCCESS);
            assertThat(bind(other.b(), other.cqB(), w, p.mrB, 64, 64, READ).status()).as("bound by another QP")
                    .isEqualTo(CompletionStatus.SUCCESS);
        }
    }
}
