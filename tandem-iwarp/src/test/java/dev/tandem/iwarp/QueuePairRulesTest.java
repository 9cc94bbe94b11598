package dev.tandem.iwarp;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rules of a QP that an application meets directly: what it reports before it is connected,
 * in which states it takes work, which flags go with which requests, how deep its receive queue
 * is, and what each way of ending a connection reports (events, flushes, the error of the next post).
 */
@Timeout(60)
class QueuePairRulesTest {
    private static final Duration WAIT = LoopbackPair.WAIT;

    /** Events about {@code resource} queued on {@code device} within a bounded wait for {@code type}; returns all seen. */
    private static List<AsyncEventType> awaitEvent(IwarpDevice device, Object resource, AsyncEventType type, List<AsyncEventType> seen) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            AsyncEvent e = left > 0 ? device.pollAsyncEvent(Duration.ofNanos(left)) : null;
            if (e == null) {
                throw new AssertionError("no " + type + " within " + WAIT + "; events seen: " + seen);
            }
            if (e.resource() == resource) {
                seen.add(e.type());
                if (e.type() == type) {
                    return seen;
                }
            }
        }
    }

    /** Every event about {@code resource} queued right now. */
    private static List<AsyncEventType> queuedEvents(IwarpDevice device, Object resource, List<AsyncEventType> seen) {
        AsyncEvent e;
        while ((e = device.pollAsyncEvent(Duration.ZERO)) != null) {
            if (e.resource() == resource) {
                seen.add(e.type());
            }
        }
        return seen;
    }

    @Test
    void anUnconnectedQpReportsItsConfiguredReadDepthsAndNoAddressesAndConnectedOneTheNegotiatedOnes() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA).withReadDepths(3, 5));
             QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB).withReadDepths(7, 2))) {
            assertThat(client.ird()).as("IRD before the connection: the configured one").isEqualTo(3);
            assertThat(client.ord()).as("ORD before the connection: the configured one").isEqualTo(5);
            assertThat(client.localAddress()).isNull();
            assertThat(client.remoteAddress()).isNull();
            p.connect(client, server);
            assertThat(client.ord()).as("client ORD: min(own 5, server IRD 7)").isEqualTo(5);
            assertThat(server.ord()).as("server ORD: min(own 2, client IRD 3)").isEqualTo(2);
            assertThat(server.ird()).as("server IRD: min(own 7, client ORD 5)").isEqualTo(5);
            assertThat(client.localAddress()).isEqualTo(server.remoteAddress());
            assertThat(client.remoteAddress()).isEqualTo(server.localAddress());
        }
    }

    @Test
    void sendsAreRefusedInRtrAndReset() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair qp = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA))) {
            qp.modify(QpState.RTR);
            assertThat(qp.state()).isEqualTo(QpState.RTR);
            WorkRequest send = new WorkRequest.Send(1, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED);
            assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(InvalidStateException.class).hasMessageContaining("RTR");
            qp.postReceive(new ReceiveRequest(2, new Sge(p.mrA, 0, 8))); // receives may be posted in RTR
            qp.modify(QpState.RESET);
            assertThat(qp.state()).isEqualTo(QpState.RESET);
            assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(InvalidStateException.class).hasMessageContaining("RESET");
            WorkCompletion flushed = LoopbackPair.awaitOne(p.cqA);
            assertThat(flushed.wrId()).as("the receive posted in RTR, flushed by the move to RESET").isEqualTo(2);
            assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThatThrownBy(() -> qp.connect(new InetSocketAddress("127.0.1.2", 9), new byte[0], WAIT))
                    .as("connect in RESET").isInstanceOf(InvalidStateException.class).hasMessageContaining("RESET");
        }
    }

    @Test
    void aQpInRtrConnectsAndReachesRts() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
             QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB))) {
            client.modify(QpState.RTR);
            assertThatThrownBy(() -> client.modify(QpState.RTS)).as("RTR -> RTS without a connection")
                    .isInstanceOf(InvalidStateException.class).hasMessageContaining("not connected");
            assertThat(client.state()).isEqualTo(QpState.RTR);
            p.connect(client, server);
            assertThat(client.state()).isEqualTo(QpState.RTS);
            server.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 16)));
            client.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 16), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(LoopbackPair.awaitOne(p.cqB).wrId()).isEqualTo(1);
        }
    }

    @Test
    void nullArgumentsAreInvalidArgument() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            assertThatThrownBy(() -> p.qpA.postSend(null)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("null");
            assertThatThrownBy(() -> p.qpA.modify(null)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("null");
            try (QueuePair fresh = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA))) {
                assertThatThrownBy(() -> fresh.connect(null, new byte[0], WAIT)).isInstanceOf(InvalidArgumentException.class);
                assertThatThrownBy(() -> fresh.connect(new InetSocketAddress("127.0.1.2", 9), new byte[0], null))
                        .isInstanceOf(InvalidArgumentException.class);
                assertThat(fresh.state()).isEqualTo(QpState.INIT);
            }
            assertThat(p.qpA.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void solicitedGoesWithSendsOnlyAndInlineWithRequestsThatCarryAPayload() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            Sge eight = new Sge(p.mrA, 0, 8);
            int rkey = p.mrB.rkey();
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.RdmaWrite(1, eight, 0, rkey, WrFlags.SOLICITED)))
                    .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("SOLICITED");
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.RdmaRead(2, eight, 0, rkey, WrFlags.SOLICITED)))
                    .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("SOLICITED");
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.LocalInvalidate(3, p.mrA.lkey(), WrFlags.INLINE)))
                    .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("INLINE");
            assertThat(p.mrA.isValid()).as("the refused Local Invalidate did nothing").isTrue();

            // a solicited, inline Send with Invalidate and a solicited Send are taken and delivered
            try (var extra = p.pdB.registerMemory(p.arena.allocate(64, 64), dev.tandem.verbs.Access.LOCAL_WRITE | dev.tandem.verbs.Access.REMOTE_READ)) {
                p.qpB.postReceive(new ReceiveRequest(10, new Sge(p.mrB, 0, 64)));
                p.qpB.postReceive(new ReceiveRequest(11, new Sge(p.mrB, 64, 64)));
                p.mrA.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 42);
                p.qpA.postSend(new WorkRequest.SendWithInvalidate(4, List.of(eight), extra.rkey(),
                        WrFlags.SIGNALED | WrFlags.SOLICITED | WrFlags.INLINE));
                p.mrA.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
                p.qpA.postSend(new WorkRequest.Send(5, eight, WrFlags.SIGNALED | WrFlags.SOLICITED));
                assertThat(LoopbackPair.awaitOne(p.cqA).wrId()).isEqualTo(4);
                assertThat(LoopbackPair.awaitOne(p.cqA).wrId()).isEqualTo(5);
                WorkCompletion first = LoopbackPair.awaitOne(p.cqB);
                assertThat(first.status()).as(first.toString()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(first.isSolicited()).isTrue();
                assertThat(first.invalidatedStag()).isEqualTo(extra.rkey());
                assertThat(p.mrB.segment().get(ValueLayout.JAVA_BYTE, 0)).as("the inline payload as posted").isEqualTo((byte) 42);
                assertThat(extra.isValid()).as("the region the Send invalidated").isFalse();
                WorkCompletion second = LoopbackPair.awaitOne(p.cqB);
                assertThat(second.wrId()).isEqualTo(11);
                assertThat(second.isSolicited()).isTrue();
            }
        }
    }

    @Test
    void aReceiveQueueOfDepthThreeTakesThreeReceivesAndRefusesTheFourth() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair qp = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA).withDepths(4, 3))) {
            for (int i = 0; i < 3; i++) {
                qp.postReceive(new ReceiveRequest(i, new Sge(p.mrA, 64L * i, 64)));
            }
            assertThatThrownBy(() -> qp.postReceive(new ReceiveRequest(3, new Sge(p.mrA, 0, 64))))
                    .isInstanceOf(QueueFullException.class).hasMessageContaining("3");
            qp.modify(QpState.ERROR);
            List<Long> flushed = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                flushed.add(LoopbackPair.awaitOne(p.cqA).wrId());
            }
            assertThat(flushed).as("the three receives taken, flushed in order").containsExactly(0L, 1L, 2L);
        }
    }

    @Test
    void aReadOnAConnectionWithOrdZeroIsInvalidStateAndTakesNoSlot() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA).withDepths(1, 4));
             QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB).withReadDepths(0, 16))) {
            p.connect(client, server);
            assertThat(client.ord()).as("ORD against a peer that serves no Reads (IRD 0)").isZero();
            WorkRequest read = new WorkRequest.RdmaRead(1, new Sge(p.mrA, 0, 8), 0, p.mrB.rkey(), WrFlags.SIGNALED);
            assertThatThrownBy(() -> client.postSend(read)).isInstanceOf(InvalidStateException.class).hasMessageContaining("ORD");
            // the send queue of depth 1 still takes a Send
            server.postReceive(new ReceiveRequest(2, new Sge(p.mrB, 0, 8)));
            client.postSend(new WorkRequest.Send(3, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).wrId()).isEqualTo(3);
            assertThat(LoopbackPair.awaitOne(p.cqB).wrId()).isEqualTo(2);
        }
    }

    @Test
    void aReceiveCompletionThatDoesNotFitItsCqFailsTheReceivingQp() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             CompletionQueue small = p.b.createCompletionQueue(4);
             QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA).withDepths(64, 4));
             QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(small).withDepths(4, 64))) {
            p.connect(client, server);
            int depth = small.depth();
            for (int i = 0; i <= depth; i++) {
                server.postReceive(new ReceiveRequest(i, new Sge(p.mrB, 0, 64)));
            }
            for (int i = 0; i <= depth; i++) {
                client.postSend(new WorkRequest.Send(100 + i, new Sge(p.mrA, 0, 8), 0)); // the receiver never polls
            }
            List<AsyncEventType> seen = awaitEvent(p.b, server, AsyncEventType.QP_FATAL, new ArrayList<>());
            assertThat(server.state()).isEqualTo(QpState.ERROR);
            awaitEvent(p.b, server, AsyncEventType.DISCONNECTED, seen);
            LoopbackPair.awaitState(client, QpState.ERROR, "the peer of the QP whose receive CQ overflowed");
        }
    }

    @Test
    void aQpAtEveryAdvertisedMaximumIsCreatedAndOneAboveAnyIsRefused() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            var a = p.a.attributes();
            QueuePairConfig max = new QueuePairConfig(p.cqA, p.cqA, null, a.maxQueuePairDepth(), a.maxQueuePairDepth(), a.maxSge(), a.maxSge(),
                    a.maxInlineData(), a.maxIrd(), a.maxOrd(), false);
            try (QueuePair qp = p.pdA.createQueuePair(max)) {
                assertThat(qp.state()).isEqualTo(QpState.INIT);
                assertThat(qp.ird()).isEqualTo(a.maxIrd());
                assertThat(qp.ord()).isEqualTo(a.maxOrd());
            }
            List<QueuePairConfig> over = List.of(
                    max.withDepths(a.maxQueuePairDepth() + 1, 1), max.withDepths(1, a.maxQueuePairDepth() + 1),
                    max.withSge(a.maxSge() + 1, 1), max.withSge(1, a.maxSge() + 1), max.withMaxInline(a.maxInlineData() + 1),
                    max.withReadDepths(a.maxIrd() + 1, 1), max.withReadDepths(1, a.maxOrd() + 1));
            for (QueuePairConfig c : over) {
                assertThatThrownBy(() -> p.pdA.createQueuePair(c)).as(c.toString()).isInstanceOf(InvalidArgumentException.class);
            }
            p.qpB.postReceive(new ReceiveRequest(2, new Sge(p.mrB, 0, 8))); // before the Send: it may arrive at once
            p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqB).wrId()).as("the adapter works on after the refusals").isEqualTo(2);
        }
    }

    @Test
    void aQpOnAClosedSharedReceiveQueueIsRefusedAndLeavesItsCompletionQueuesFree() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            SharedReceiveQueue srq = p.pdA.createSharedReceiveQueue(4, 1);
            srq.close();
            CompletionQueue send = p.a.createCompletionQueue(8);
            CompletionQueue receive = p.a.createCompletionQueue(8);
            assertThatThrownBy(() -> p.pdA.createQueuePair(new QueuePairConfig(send, receive, srq, 4, 4, 1, 1, 0, 1, 1, false)))
                    .isInstanceOf(dev.tandem.verbs.ResourceClosedException.class).hasMessageContaining("shared receive queue");
            send.close(); // no QP holds them: both close
            receive.close();
            assertThatThrownBy(() -> send.poll(WorkCompletion.array(1))).isInstanceOf(dev.tandem.verbs.ResourceClosedException.class);
            assertThatThrownBy(() -> receive.poll(WorkCompletion.array(1))).isInstanceOf(dev.tandem.verbs.ResourceClosedException.class);
        }
    }

    @Test
    void aBindNamingAWindowOfAnotherPdOrARegionThisAdapterDoesNotHoldIsRefusedAtPost() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             dev.tandem.verbs.ProtectionDomain other = p.a.allocateProtectionDomain();
             dev.tandem.verbs.MemoryWindow foreignWindow = other.allocateMemoryWindow();
             dev.tandem.verbs.MemoryWindow w = p.pdA.allocateMemoryWindow()) {
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.BindWindow(1, foreignWindow, p.mrA, 0, 64, dev.tandem.verbs.Access.REMOTE_READ,
                    1, WrFlags.SIGNALED))).isInstanceOf(dev.tandem.verbs.LocalProtectionException.class).hasMessageContaining("window");
            // a region of another provider over the same memory, under an lkey this adapter has not registered
            dev.tandem.verbs.MemoryRegion alien = new dev.tandem.verbs.MemoryRegion() {
                @Override public dev.tandem.verbs.ProtectionDomain pd() { return p.pdA; }
                @Override public java.lang.foreign.MemorySegment segment() { return p.mrA.segment(); }
                @Override public int access() { return p.mrA.access(); }
                @Override public int lkey() { return p.mrA.lkey() + 0x100; }
                @Override public int rkey() { return lkey(); }
                @Override public int reregister(int access) { throw new UnsupportedOperationException(); }
                @Override public boolean isValid() { return true; }
                @Override public void close() { }
            };
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.BindWindow(2, w, alien, 0, 64, dev.tandem.verbs.Access.REMOTE_READ,
                    1, WrFlags.SIGNALED))).isInstanceOf(dev.tandem.verbs.LocalProtectionException.class).hasMessageContaining("region")
                    .hasMessageContaining("names no region on this adapter");
            assertThat(p.qpA.state()).as("a bind refused at post leaves the QP alone").isEqualTo(QpState.RTS);
            assertThat(p.cqA.poll(WorkCompletion.array(1))).as("nothing was posted").isZero();
        }
    }

    @Test
    void anInlineSendOfExactlyMaxInlineDataGathersEveryEntryAtPostTime() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA).withMaxInline(96));
             QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB))) {
            p.connect(client, server);
            for (int i = 0; i < 200; i++) {
                p.mrA.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            server.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 128)));
            // 40 + 56 = 96 bytes from two entries
            client.postSend(new WorkRequest.Send(2, List.of(new Sge(p.mrA, 100, 40), new Sge(p.mrA, 0, 56)), WrFlags.SIGNALED | WrFlags.INLINE));
            p.mrA.segment().fill((byte) 0);
            assertThatThrownBy(() -> client.postSend(new WorkRequest.Send(3, new Sge(p.mrA, 0, 97), WrFlags.SIGNALED | WrFlags.INLINE)))
                    .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("96");
            assertThat(LoopbackPair.awaitOne(p.cqA).wrId()).isEqualTo(2);
            WorkCompletion wc = LoopbackPair.awaitOne(p.cqB);
            assertThat(wc.byteLength()).isEqualTo(96);
            for (int i = 0; i < 96; i++) {
                byte expected = (byte) (i < 40 ? 101 + i : i - 40 + 1);
                assertThat(p.mrB.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(expected);
            }
        }
    }

    @Test
    void disconnectingAQpThatWasNeverConnectedChangesNothing() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair qp = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA))) {
            qp.postReceive(new ReceiveRequest(1, new Sge(p.mrA, 0, 64)));
            qp.disconnect();
            assertThat(qp.state()).isEqualTo(QpState.INIT);
            assertThat(p.cqA.poll(WorkCompletion.array(1))).as("the receive stays posted").isZero();
            p.qpA.disconnect();
            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "the peer of a QP that disconnected");
            p.qpA.disconnect(); // a second disconnect is harmless
            assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
        }
    }

    @Test
    void movingAConnectedQpToResetEndsTheConnectionAndFlushesItsReceives() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.postReceive(new ReceiveRequest(1, new Sge(p.mrA, 0, 64)));
            p.qpB.postReceive(new ReceiveRequest(2, new Sge(p.mrB, 0, 64)));
            p.qpA.modify(QpState.RESET);
            assertThat(p.qpA.state()).isEqualTo(QpState.RESET);
            assertThat(p.qpA.localAddress()).as("a QP in RESET has no connection").isNull();
            WorkCompletion mine = LoopbackPair.awaitOne(p.cqA);
            assertThat(mine.wrId()).isEqualTo(1);
            assertThat(mine.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "the peer of a QP moved from RTS to RESET");
            WorkCompletion theirs = LoopbackPair.awaitOne(p.cqB);
            assertThat(theirs.wrId()).isEqualTo(2);
            assertThat(theirs.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            awaitEvent(p.a, p.qpA, AsyncEventType.DISCONNECTED, new ArrayList<>());
        }
    }

    @Test
    void aConsumersMoveToErrorRaisesDisconnectedAloneAndTheNextPostDoesNotThrow() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.modify(QpState.ERROR);
            List<AsyncEventType> seen = awaitEvent(p.a, p.qpA, AsyncEventType.DISCONNECTED, new ArrayList<>());
            p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED));
            WorkCompletion wc = LoopbackPair.awaitOne(p.cqA);
            assertThat(wc.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(wc.opcode()).isEqualTo(CompletionOpcode.SEND);
            assertThat(wc.byteLength()).as("a flushed request moved no bytes").isZero();
            assertThat(queuedEvents(p.a, p.qpA, seen)).as("events of a QP its consumer moved to ERROR")
                    .containsExactly(AsyncEventType.COMMUNICATION_ESTABLISHED, AsyncEventType.DISCONNECTED);
        }
    }

    @Test
    void aPeerThatDisconnectsEndsTheConnectionWithOneDisconnectedAndNoErrorForTheNextPost() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.postReceive(new ReceiveRequest(1, new Sge(p.mrA, 0, 64)));
            p.qpB.disconnect();
            List<AsyncEventType> seen = awaitEvent(p.a, p.qpA, AsyncEventType.DISCONNECTED, new ArrayList<>());
            assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(queuedEvents(p.a, p.qpA, seen)).as("events of a QP whose peer disconnected")
                    .containsExactly(AsyncEventType.COMMUNICATION_ESTABLISHED, AsyncEventType.DISCONNECTED);
        }
    }

    @Test
    void closingAConnectedQpRaisesNothingAboutItButTellsThePeer() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.close();
            assertThat(queuedEvents(p.a, p.qpA, new ArrayList<>())).as("events of a QP its consumer closed")
                    .containsExactly(AsyncEventType.COMMUNICATION_ESTABLISHED);
            awaitEvent(p.b, p.qpB, AsyncEventType.DISCONNECTED, new ArrayList<>());
        }
    }

    @Test
    void anErrorTheEngineFoundIsThrownByTheNextPostOnlyOnce() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            // a Send with no receive posted at the peer: the peer answers with a Terminate
            p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED));
            awaitEvent(p.a, p.qpA, AsyncEventType.DISCONNECTED, new ArrayList<>());
            ReceiveRequest r = new ReceiveRequest(2, new Sge(p.mrA, 0, 8));
            assertThatThrownBy(() -> p.qpA.postReceive(r)).isInstanceOf(AsyncErrorException.class)
                    .hasMessageContaining("QP " + p.qpA.qpNumber());
            p.qpA.postReceive(r);
            List<Long> ids = new ArrayList<>();
            ids.add(LoopbackPair.awaitOne(p.cqA).wrId());
            ids.add(LoopbackPair.awaitOne(p.cqA).wrId());
            assertThat(ids).containsExactlyInAnyOrder(1L, 2L);
        }
    }

    @Test
    void aQpOnASharedReceiveQueueScattersIntoAsManyEntriesAsTheSharedQueueAllows() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 8192);
             SharedReceiveQueue srq = p.pdB.createSharedReceiveQueue(8, 4);
             CompletionQueue cq = p.b.createCompletionQueue(16);
             QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
             QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(cq).withSge(1, 1).withSrq(srq))) {
            p.connect(client, server);
            srq.postReceive(new ReceiveRequest(1, List.of(new Sge(p.mrB, 0, 10), new Sge(p.mrB, 100, 10), new Sge(p.mrB, 200, 10),
                    new Sge(p.mrB, 300, 10))));
            for (int i = 0; i < 40; i++) {
                p.mrA.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            client.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 40), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.SUCCESS);
            WorkCompletion wc = LoopbackPair.awaitOne(cq);
            assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(wc.byteLength()).isEqualTo(40);
            for (int e = 0; e < 4; e++) {
                for (int i = 0; i < 10; i++) {
                    assertThat(p.mrB.segment().get(ValueLayout.JAVA_BYTE, 100L * e + i)).as("entry %d byte %d", e, i)
                            .isEqualTo((byte) (10 * e + i + 1));
                }
            }
            assertThat(server.state()).isEqualTo(QpState.RTS);
        }
    }
}
