package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shared receive queue's buffers are never posted on two adapters at once (two messages could land
 * in one buffer). Its receives leave an adapter that works only when no other connection receives
 * through it there; an adapter they left alive is made anew when its link comes back, so that fail,
 * heal and fail back works over an SRQ with nothing lost or twice.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedReceiveQueueFailoverTest {
    private static final int MESSAGES = 200;
    private static final int SIZE = 64;
    private final Opened opened = new Opened();
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
        opened.close();
    }

    @Test
    void failHealAndFailBackOverAnSrqWhoseAdapterLostOnlyItsLink() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED, true);
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) nodes.sb.srq();
        int first = srq.adapter();
        int other = 1 - first;
        LinkControl link = (LinkControl) nodes.b.adapters().get(first);
        SharedReceiveQueue stale = srq.under(first);
        nodes.stream(MESSAGES, MESSAGES / 2, link::linkDown);
        assertThat(srq.adapter()).as("the SRQ's receives moved off the dark link").isEqualTo(other);
        assertThat(srq.under(first)).as("the SRQ left behind, still holding receives, is made anew").isNotNull().isNotSameAs(stale);
        assertThat(nodes.b.ownerOf(stale)).isNull();
        assertThat(nodes.b.ownerOf(srq.under(first))).isSameAs(srq);
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(dev.tandem.verbs.ResourceClosedException.class,
                () -> stale.postReceive(new ReceiveRequest(1, new Sge(nodes.sb.region(), 0, SIZE))))).as("the stale SRQ is closed").isNotNull();

        link.linkUp(); // the SRQ there still holds the receives posted before: it is made anew
        nodes.awaitAllPaths();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) nodes.b.adapters().get(other))
                .injectFatalError("test: the adapter the SRQ moved to"));
        assertThat(srq.adapter()).as("the SRQ's receives are back on the adapter whose link came back").isEqualTo(first);
    }

    /**
     * The SRQ's adapter has a fatal error and is reset (the SRQ is made there again); then the adapter the
     * receives moved to fails the same way: they come back to the first, nothing lost or twice.
     */
    @Test
    void failResetAndFailBackOverAnSrqWhoseAdaptersDieInTurn() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED, true);
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) nodes.sb.srq();
        int first = srq.adapter();
        int other = 1 - first;
        AdapterControl dying = (AdapterControl) nodes.b.adapters().get(first);
        nodes.stream(MESSAGES, MESSAGES / 2, () -> dying.injectFatalError("test: the SRQ's adapter"));
        assertThat(srq.adapter()).as("the SRQ's receives moved off the failed adapter").isEqualTo(other);

        dying.reset(Duration.ofSeconds(5));
        nodes.awaitAllPaths();
        assertThat(srq.under(first)).as("the SRQ made again on the adapter that was reset").isNotNull();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) nodes.b.adapters().get(other))
                .injectFatalError("test: the adapter the SRQ moved to"));
        assertThat(srq.adapter()).as("the SRQ's receives are back on the adapter that was reset").isEqualTo(first);
    }

    @Test
    void aConnectionWhosePathBreaksKeepsItsReceivesOnTheQueuesAdapterOverACrossPathAndTheOtherIsUntouched() throws Exception {
        FailoverDevice a = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a"));
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemorySegment memA = arena.allocate(SIZE * 64L, 64);
        MemorySegment memB = arena.allocate(SIZE * 64L, 64);
        MemoryRegion mrA = opened.keep(pdA.registerMemory(memA, Access.LOCAL_WRITE));
        MemoryRegion mrB = opened.keep(pdB.registerMemory(memB, Access.LOCAL_WRITE));
        SharedReceiveQueue srq = opened.keep(pdB.createSharedReceiveQueue(32, 1));
        CompletionQueue cqA1 = opened.keep(a.createCompletionQueue(64));
        CompletionQueue cqA2 = opened.keep(a.createCompletionQueue(64));
        CompletionQueue cqB1 = opened.keep(b.createCompletionQueue(64));
        CompletionQueue cqB2 = opened.keep(b.createCompletionQueue(64));
        FailoverQueuePair qa1 = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA1).withDepths(16, 4)));
        FailoverQueuePair qa2 = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA2).withDepths(16, 4)));
        FailoverQueuePair qb1 = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB1).withDepths(4, 4).withSrq(srq)));
        FailoverQueuePair qb2 = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB2).withDepths(4, 4).withSrq(srq)));
        for (int i = 0; i < 32; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        Opened.connect(qa1, b, "127.0.1.2", qb1);
        Opened.connect(qa2, b, "127.0.1.2", qb2);
        int shared = ((FailoverSharedReceiveQueue) srq).adapter();
        assertThat(qb1.receivePathAdapter()).isEqualTo(shared);
        assertThat(qb2.receivePathAdapter()).isEqualTo(shared);
        Path broken = qb1.paths.receivePath();
        Path other = qb2.paths.receivePath();

        // one connection's path breaks (its own transport, not the adapter): it moves to its cross path to the same adapter
        qa1.moves().failover(qa1.paths.sendPath(), null, "test: this connection's path broke");
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (qb1.paths.receive == broken.id || qa1.migrating() || qb1.migrating()) {
            assertThat(System.nanoTime()).as("b's first connection to receive over another path").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(qb1.receivePathAdapter()).as("its receives stayed on the queue's adapter").isEqualTo(shared);
        assertThat(((FailoverSharedReceiveQueue) srq).adapter()).as("the SRQ's receives stayed").isEqualTo(shared);
        assertThat(qb2.paths.receive).as("the other connection kept its path").isEqualTo(other.id);
        assertThat(other.up).isTrue();

        // both connections go on through the SRQ, each message once, with its bytes
        WorkCompletion[] wcs = WorkCompletion.array(8);
        for (int m = 0; m < 40; m++) {
            FailoverQueuePair sender = m % 2 == 0 ? qa1 : qa2;
            CompletionQueue senderCq = m % 2 == 0 ? cqA1 : cqA2;
            CompletionQueue receiverCq = m % 2 == 0 ? cqB1 : cqB2;
            memA.set(ValueLayout.JAVA_INT, 0, 1000 + m);
            sender.postSend(new WorkRequest.Send(m, new Sge(mrA, 0, SIZE), WrFlags.SIGNALED));
            WorkCompletion r = TwoNodes.awaitOne(receiverCq, "message " + m);
            assertThat(r.status()).as("%s", r).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.opcode()).isEqualTo(CompletionOpcode.RECV);
            int slot = (int) r.wrId();
            assertThat(memB.get(ValueLayout.JAVA_INT, (long) slot * SIZE)).as("message %d's bytes", m).isEqualTo(1000 + m);
            srq.postReceive(new ReceiveRequest(slot, new Sge(mrB, (long) slot * SIZE, SIZE)));
            assertThat(TwoNodes.awaitOne(senderCq, "the Send's completion").status()).isEqualTo(CompletionStatus.SUCCESS);
        }
        assertThat(qb1.state()).isEqualTo(QpState.RTS);
        assertThat(qb2.state()).isEqualTo(QpState.RTS);
        assertThat(cqB1.poll(wcs)).as("nothing arrived twice").isZero();
        assertThat(cqB2.poll(wcs)).as("nothing arrived twice").isZero();
    }

    /**
     * Two connections on one SRQ; the sender saw all its Sends complete (the peer was shown to hold them);
     * the SRQ's adapter fails before the receiver polled, and is reset as soon as it reports FATAL (its
     * CQ is gone before the layer could read it): every one of those Sends reaches the receiver, in order,
     * whichever connection it came on (the receives move once, for both connections, after each rebuilt
     * what it holds from the headers in the buffers).
     */
    @Test
    void everySendTheSenderSawCompleteReachesItsConnectionThoughTheQueuesAdapterDiedBeforeTheReceiverPolled() throws Exception {
        FailoverDevice a = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a"));
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemorySegment memA = arena.allocate(SIZE * 64L, 64);
        MemorySegment memB = arena.allocate(SIZE * 64L, 64);
        MemoryRegion mrA = opened.keep(pdA.registerMemory(memA, Access.LOCAL_WRITE));
        MemoryRegion mrB = opened.keep(pdB.registerMemory(memB, Access.LOCAL_WRITE));
        SharedReceiveQueue srq = opened.keep(pdB.createSharedReceiveQueue(32, 1));
        CompletionQueue[] cqA = {opened.keep(a.createCompletionQueue(64)), opened.keep(a.createCompletionQueue(64))};
        CompletionQueue[] cqB = {opened.keep(b.createCompletionQueue(64)), opened.keep(b.createCompletionQueue(64))};
        FailoverQueuePair[] qa = new FailoverQueuePair[2];
        FailoverQueuePair[] qb = new FailoverQueuePair[2];
        for (int c = 0; c < 2; c++) {
            qa[c] = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA[c]).withDepths(16, 4)));
            qb[c] = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB[c]).withDepths(4, 4).withSrq(srq)));
        }
        for (int i = 0; i < 32; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        for (int c = 0; c < 2; c++) {
            Opened.connect(qa[c], b, "127.0.1.2", qb[c]);
        }
        WorkCompletion[] wcs = WorkCompletion.array(16);
        for (int m = 0; m < 8; m++) {
            for (int c = 0; c < 2; c++) {
                int slot = 2 * m + c;
                memA.set(ValueLayout.JAVA_INT, (long) slot * SIZE, c * 1000 + m);
                qa[c].postSend(new WorkRequest.Send(m, new Sge(mrA, (long) slot * SIZE, SIZE), WrFlags.SIGNALED));
            }
        }
        for (int c = 0; c < 2; c++) {
            for (int m = 0; m < 8; m++) {
                WorkCompletion done = TwoNodes.awaitOne(cqA[c], "Send " + m + " of connection " + c);
                assertThat(done.status()).as("%s", done).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(done.wrId()).isEqualTo(m);
            }
        }

        int x = ((FailoverSharedReceiveQueue) srq).adapter();
        AdapterControl failing = (AdapterControl) b.adapters().get(x);
        FailoverWatch wb = b.watch();
        try (var _ = Busy.hold(b)) { // b's layer is busy: the CQ goes before it could read it
            failing.injectFatalError("test: the SRQ's adapter, before its receiver polled");
            failing.reset(Duration.ofMillis(50)); // at once, as a PCI error handler does
        }

        for (int c = 0; c < 2; c++) {
            for (int m = 0; m < 8; m++) {
                WorkCompletion r = TwoNodes.awaitOne(cqB[c], "message " + m + " of connection " + c);
                assertThat(r.status()).as("%s", r).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(r.opcode()).isEqualTo(CompletionOpcode.RECV);
                assertThat(memB.get(ValueLayout.JAVA_INT, r.wrId() * SIZE)).as("message %d of connection %d", m, c).isEqualTo(c * 1000 + m);
            }
            assertThat(cqB[c].poll(wcs)).as("connection %d got nothing twice", c).isZero();
        }
        // the queue moved once, for both connections: each move tells the 16 receives no message had reached, posted again
        java.util.List<FailoverEvent> events = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        for (int c = 0; c < 2; c++) {
            int qpn = qb[c].qpNumber();
            while (events.stream().noneMatch(e -> e instanceof FailoverEvent.Moved m && m.qpNumber() == qpn)) {
                assertThat(System.nanoTime()).as("b's Moved for connection %d: %s", c, events).isLessThan(deadline);
                FailoverEvent e = wb.poll(Duration.ofMillis(50));
                if (e != null) {
                    events.add(e);
                }
            }
        }
        assertThat(events).filteredOn(FailoverEvent.Moved.class::isInstance).extracting(e -> ((FailoverEvent.Moved) e).receivesReposted())
                .as("receives posted again: %s", events).containsExactly(16, 16);
    }

    /**
     * The SRQ's receives leave an adapter that keeps working (its connections were reset): that adapter's
     * SRQ is made anew at once, so a second fault, on the adapter they went to, moves them back.
     */
    @Test
    void anSrqConnectionSurvivesASecondFaultAfterItsReceivesLeftAnAdapterThatKeptWorking() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED, true);
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) nodes.sb.srq();
        int first = srq.adapter();
        int other = 1 - first;
        LinkControl links = (LinkControl) nodes.b.adapters().get(first);
        nodes.stream(MESSAGES, MESSAGES / 2, links::resetConnections);
        assertThat(srq.adapter()).as("the SRQ's receives left the adapter whose connections were reset").isEqualTo(other);
        nodes.awaitAllPaths();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) nodes.b.adapters().get(other))
                .injectFatalError("test: the adapter the SRQ moved to"));
        assertThat(srq.adapter()).as("the receives are back on the adapter that kept working").isEqualTo(first);
    }

    /**
     * Receives posted on an SRQ before any connection uses it, whose adapter then fails (and is reset): they
     * follow the queue to the other adapter, and the first connection's messages land in them, in order.
     */
    @Test
    void receivesPostedBeforeAnyConnectionFollowTheQueueOffAnAdapterThatFailed() throws Exception {
        FailoverDevice a = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a"));
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemorySegment memA = arena.allocate(SIZE, 64);
        MemorySegment memB = arena.allocate(SIZE * 8L, 64);
        MemoryRegion mrA = opened.keep(pdA.registerMemory(memA, Access.LOCAL_WRITE));
        MemoryRegion mrB = opened.keep(pdB.registerMemory(memB, Access.LOCAL_WRITE));
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) opened.keep(pdB.createSharedReceiveQueue(8, 1));
        for (int i = 0; i < 8; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        int first = srq.adapter();
        int other = 1 - first;
        SharedReceiveQueue lost = srq.under(first);
        AdapterControl dying = (AdapterControl) b.adapters().get(first);
        dying.injectFatalError("test: the SRQ's adapter, before any connection");
        Opened.await("the receives to leave the failed adapter", () -> srq.adapter() != first);
        assertThat(srq.adapter()).as("the receives followed the queue to the adapter that works").isEqualTo(other);
        assertThat(srq.under(first)).as("the SRQ of the failed adapter is gone").isNull();
        assertThat(b.ownerOf(lost)).as("and no longer owned").isNull();
        dying.reset(Duration.ofSeconds(5));
        Opened.await("the SRQ made again on the adapter that was reset", () -> srq.under(first) != null);
        assertThat(b.ownerOf(srq.under(first))).isSameAs(srq);

        CompletionQueue cqA = opened.keep(a.createCompletionQueue(16));
        CompletionQueue cqB = opened.keep(b.createCompletionQueue(16));
        FailoverQueuePair qa = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(8, 4)));
        FailoverQueuePair qb = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, 4).withSrq(srq)));
        Opened.connect(qa, b, "127.0.1.2", qb);
        for (int m = 0; m < 8; m++) {
            memA.set(ValueLayout.JAVA_INT, 0, 500 + m);
            qa.postSend(new WorkRequest.Send(m, new Sge(mrA, 0, SIZE), WrFlags.SIGNALED));
            assertThat(TwoNodes.awaitOne(cqA, "the Send's completion").status()).isEqualTo(CompletionStatus.SUCCESS);
            WorkCompletion r = TwoNodes.awaitOne(cqB, "message " + m);
            assertThat(r.status()).as("%s", r).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.wrId()).as("the receives complete in posting order").isEqualTo(m);
            assertThat(memB.get(ValueLayout.JAVA_INT, (long) m * SIZE)).as("message %d's bytes", m).isEqualTo(500 + m);
        }
    }

    /** Closing an SRQ closes it on every adapter under it, and the node no longer names it their owner. */
    @Test
    void closingAnSrqClosesItOnEveryAdapter() throws Exception {
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemoryRegion mrB = opened.keep(pdB.registerMemory(opened.keep(Arena.ofShared()).allocate(SIZE, 64), Access.LOCAL_WRITE));
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) pdB.createSharedReceiveQueue(8, 1);
        SharedReceiveQueue[] under = {srq.under(0), srq.under(1)};
        for (SharedReceiveQueue u : under) {
            assertThat(u).as("an SRQ on each adapter").isNotNull();
            assertThat(b.ownerOf(u)).isSameAs(srq);
        }
        srq.close();
        for (SharedReceiveQueue u : under) {
            assertThat(b.ownerOf(u)).as("no owner left for %s", u).isNull();
            assertThat(org.junit.jupiter.api.Assertions.assertThrows(dev.tandem.verbs.ResourceClosedException.class,
                    () -> u.postReceive(new ReceiveRequest(1, new Sge(mrB, 0, SIZE))))).as("%s is closed", u).isNotNull();
        }
    }

    /** Both adapters of the SRQ's node failed and were reset: the SRQ still closes (once its QPs closed). */
    @Test
    void anSrqClosesAfterBothAdaptersOfItsNodeFailedAndWereReset() throws Exception {
        FailoverDevice a = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a"));
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemoryRegion mrB = opened.keep(pdB.registerMemory(arena.allocate(SIZE * 8L, 64), Access.LOCAL_WRITE));
        SharedReceiveQueue srq = pdB.createSharedReceiveQueue(8, 1);
        CompletionQueue cqA = opened.keep(a.createCompletionQueue(16));
        CompletionQueue cqB = opened.keep(b.createCompletionQueue(16));
        FailoverQueuePair qa = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(4, 4)));
        FailoverQueuePair qb = (FailoverQueuePair) pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, 4).withSrq(srq));
        for (int i = 0; i < 8; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        Opened.connect(qa, b, "127.0.1.2", qb);
        for (var adapter : b.adapters()) {
            ((AdapterControl) adapter).injectFatalError("test: both adapters of the SRQ's node");
        }
        for (var adapter : b.adapters()) {
            ((AdapterControl) adapter).reset(Duration.ofSeconds(5));
        }
        qb.close();
        srq.close();
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(dev.tandem.verbs.ResourceClosedException.class,
                () -> srq.postReceive(new ReceiveRequest(9, new Sge(mrB, 0, SIZE)))).getMessage()).contains("closed");
    }
}
