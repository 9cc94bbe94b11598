package dev.tandem.failover;

import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The receive log: slots handed out and taken back once, posting order kept, and the epoch in each
 * adapter receive's work request id, so that a completion of an earlier posting never takes a slot's
 * new one. Its header region needs a fail-over protection domain: one device for the whole class.
 */
class ReceiveLogTest {
    private static final Opened opened = new Opened();
    private static FailoverProtectionDomain pd;

    @BeforeAll
    static void openDevice() {
        FailoverDevice device = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=receivelog"));
        pd = opened.keep((FailoverProtectionDomain) device.allocateProtectionDomain());
    }

    @AfterAll
    static void closeDevice() {
        opened.close();
    }

    private static ReceiveRequest receive(long wrId, int sges) {
        List<Sge> sgl = new ArrayList<>();
        for (int i = 0; i < sges; i++) {
            sgl.add(new Sge(Fakes.region(), 64L * i, 64));
        }
        return new ReceiveRequest(wrId, sgl);
    }

    @Test
    void slotsAreHandedOutOnceAndTheDepthIsKept() {
        try (ReceiveLog log = new ReceiveLog(pd::registerInternal, 4)) {
            List<Integer> slots = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                slots.add(log.claim(receive(i, 1), "QP 7", 3));
            }
            assertThat(slots).as("distinct slots of the log").doesNotHaveDuplicates().allMatch(s -> s >= 0 && s < 4);
            assertThat(log.pending()).isEqualTo(3);
            assertThatThrownBy(() -> log.claim(receive(3, 1), "QP 7", 3)).as("a fourth receive on a queue of depth 3")
                    .isInstanceOf(QueueFullException.class).hasMessageContaining("QP 7").hasMessageContaining("3 receives posted");
            log.unclaim(slots.get(1));
            log.unclaim(slots.get(1));
            assertThat(log.pending()).as("unclaiming a free slot again changes nothing").isEqualTo(2);
            int again = log.claim(receive(4, 1), "QP 7", 3);
            int fourth = log.claim(receive(5, 1), "QP 7", 4);
            assertThat(List.of(slots.get(0), slots.get(2), again, fourth)).as("every slot once").containsExactlyInAnyOrder(0, 1, 2, 3);
        }
    }

    @Test
    void theWorkRequestIdCarriesTheEpochAndAnEarlierPostingsCompletionTakesNothing() {
        try (ReceiveLog log = new ReceiveLog(pd::registerInternal, 4)) {
            log.claim(receive(76, 0), "QP 1", 4);
            ReceiveRequest app = receive(77, 2);
            int slot = log.claim(app, "QP 1", 4);
            assertThat(slot).as("the second slot handed out").isNotZero();
            assertThat(log.unposted(slot)).as("logged, not posted").isTrue();
            assertThat(log.wireId(slot)).as("an unposted slot's id names no epoch").isEqualTo(-1L << 32 | slot);

            ReceiveRequest wire = log.onAdapter(slot);
            assertThat(wire.wrId()).as("epoch 0, slot %d", slot).isEqualTo(slot);
            assertThat(log.wireId(slot)).isEqualTo(wire.wrId());
            assertThat(log.unposted(slot)).isFalse();
            assertThat(ReceiveLog.slotOf(wire.wrId())).isEqualTo(slot);
            assertThat(log.current(wire.wrId())).isTrue();

            log.nextEpoch();
            assertThat(log.unposted(slot)).as("the receives are to be posted anew").isTrue();
            assertThat(log.current(wire.wrId())).as("a completion of the QP the receives left").isFalse();
            assertThat(log.take(wire.wrId())).as("takes nothing").isNull();
            assertThat(log.pending()).isEqualTo(2);

            ReceiveRequest again = log.onAdapter(slot);
            assertThat(again.wrId()).as("epoch 1 in the high half").isEqualTo(1L << 32 | slot);
            assertThat(again.sgl()).isEqualTo(wire.sgl());
            log.nextEpoch();
            ReceiveRequest third = log.onAdapter(slot);
            assertThat(third.wrId()).isEqualTo(2L << 32 | slot);
            assertThat(log.current(again.wrId())).isFalse();
            assertThat(log.current(third.wrId())).isTrue();
            assertThat(log.take(third.wrId())).as("the current posting's completion").isSameAs(app);
            assertThat(log.pending()).isEqualTo(1);
            assertThat(log.take(third.wrId())).as("taken once").isNull();
            assertThat(log.current(third.wrId())).isFalse();
        }
    }

    @Test
    void theAdapterReceiveHasTheClearedHeaderInFrontOfTheApplicationsBuffers() {
        try (ReceiveLog log = new ReceiveLog(pd::registerInternal, 3)) {
            log.claim(receive(1, 1), "QP 1", 3);
            ReceiveRequest app = receive(2, 3);
            int slot = log.claim(app, "QP 1", 3);
            long at = ReceiveLog.offset(slot);
            assertThat(at).isEqualTo(slot * 32L);
            MemorySegment s = log.segment();
            assertThat(s.byteSize()).as("a header per slot").isEqualTo(3L * FailoverHeader.LENGTH);
            s.fill((byte) 0x5A);
            ReceiveRequest wire = log.onAdapter(slot);
            for (long i = 0; i < s.byteSize(); i++) {
                byte expected = i >= at && i < at + FailoverHeader.LENGTH ? 0 : (byte) 0x5A;
                assertThat(s.get(ValueLayout.JAVA_BYTE, i)).as("byte %d: only slot %d's header is cleared", i, slot).isEqualTo(expected);
            }
            Sge header = wire.sgl().get(0);
            assertThat(header.offset()).isEqualTo(at);
            assertThat(header.length()).isEqualTo(FailoverHeader.LENGTH);
            assertThat(header.region().segment().address()).as("the header lands in the log's segment").isEqualTo(s.address());
            assertThat(wire.sgl().subList(1, 4)).as("then the application's buffers, in order").isEqualTo(app.sgl());

            s.fill((byte) 0x5A);
            assertThat(log.onAdapter(slot)).as("posted again in the same epoch: the same adapter receive").isSameAs(wire);
            assertThat(FailoverHeader.present(s, at)).isFalse();
            assertThat(s.get(ValueLayout.JAVA_LONG, at)).as("the header is cleared each time").isZero();
        }
    }

    @Test
    void completionsOfSlotsOutOfRangeOrFreeTakeNothing() {
        try (ReceiveLog log = new ReceiveLog(pd::registerInternal, 2)) {
            int slot = log.claim(receive(1, 1), "QP 1", 2);
            long id = log.onAdapter(slot).wrId();
            int other = 1 - slot;
            assertThat(log.take(other)).as("a free slot").isNull();
            assertThat(log.current(other)).isFalse();
            assertThat(log.take(2)).as("slot 2 of 2").isNull();
            assertThat(log.current(2)).isFalse();
            assertThat(log.take(0xFFFF_FFFFL)).as("slot -1").isNull();
            assertThat(log.current(0xFFFF_FFFFL)).isFalse();
            assertThat(log.takeSlot(other)).isNull();
            assertThat(log.pending()).isEqualTo(1);
            assertThat(log.current(id)).isTrue();
            assertThat(log.peek(slot)).isNotNull();
        }
    }

    @Test
    void aReceiveTakenForACompletionNotDeliveredGoesBackFirst() {
        try (ReceiveLog log = new ReceiveLog(pd::registerInternal, 4)) {
            ReceiveRequest a = receive(1, 1);
            ReceiveRequest b = receive(2, 1);
            ReceiveRequest c = receive(3, 1);
            int sa = log.claim(a, "QP 1", 4);
            int sb = log.claim(b, "QP 1", 4);
            int sc = log.claim(c, "QP 1", 4);
            assertThat(log.inOrder()).containsExactly(sa, sb, sc);
            log.onAdapter(sa);
            ReceiveRequest taken = log.take(log.wireId(sa));
            assertThat(taken).isSameAs(a);
            assertThat(log.inOrder()).containsExactly(sb, sc);
            log.putFirst(taken);
            List<Integer> order = log.inOrder();
            assertThat(order).as("first in posting order again").hasSize(3).endsWith(sb, sc);
            int back = order.get(0);
            assertThat(log.peek(back)).isSameAs(a);
            assertThat(log.unposted(back)).as("not posted anywhere").isTrue();
            assertThat(log.takeSlot(sb)).as("a rebuilt completion takes the slot").isSameAs(b);
            assertThat(log.inOrder()).containsExactly(back, sc);
            assertThat(log.peek(sb)).isNull();
            assertThat(log.unposted(sb)).as("a free slot is not a receive waiting to be posted").isFalse();
        }
    }

    @Test
    void closingReleasesTheHeaderRegionAndItsMemory() {
        ReceiveLog log = new ReceiveLog(pd::registerInternal, 1);
        log.claim(receive(1, 0), "QP 1", 1);
        Sge header = log.onAdapter(0).sgl().get(0);
        assertThat(header.region().isValid()).isTrue();
        log.close();
        assertThat(header.region().isValid()).as("deregistered").isFalse();
        assertThat(log.segment().scope().isAlive()).as("freed").isFalse();
    }

    // ---------------------------------------------------------------- against a model

    @Test
    void randomUseMatchesTheModel() {
        for (long seed = 0; seed < 60; seed++) {
            runAgainstModel(seed);
        }
    }

    private static void runAgainstModel(long seed) {
        Random rnd = new Random(seed);
        int slots = 1 + rnd.nextInt(5);
        int depth = slots - rnd.nextInt(slots);
        List<ReceiveRequest> pool = List.of(receive(100, 0), receive(101, 1), receive(102, 3));
        // the model: per slot the receive (null: free) and the epoch it is posted in (null: unposted)
        ReceiveRequest[] request = new ReceiveRequest[slots];
        Integer[] postedIn = new Integer[slots];
        LinkedList<Integer> order = new LinkedList<>();
        Map<Integer, ReceiveRequest> lastWire = new HashMap<>();
        Map<Integer, ReceiveRequest> lastWireFor = new HashMap<>();
        Map<Integer, Integer> lastWireEpoch = new HashMap<>();
        int epoch = 0;
        String at = "";
        try (ReceiveLog log = new ReceiveLog(pd::registerInternal, slots)) {
            for (int step = 0; step < 200; step++) {
                int op = rnd.nextInt(100);
                int inUse = order.size();
                if (op < 30) {
                    ReceiveRequest r = rnd.nextInt(3) == 0 ? pool.get(rnd.nextInt(pool.size())) : receive(step, rnd.nextInt(3));
                    at = "seed " + seed + " step " + step + " claim (" + inUse + " of depth " + depth + ")";
                    if (inUse >= depth) {
                        assertThatThrownBy(() -> log.claim(r, "Q", depth)).as(at).isInstanceOf(QueueFullException.class);
                    } else {
                        int slot = log.claim(r, "Q", depth);
                        assertThat(slot).as("%s: a slot of the log", at).isBetween(0, slots - 1);
                        assertThat(request[slot]).as("%s: slot %d was free", at, slot).isNull();
                        request[slot] = r;
                        postedIn[slot] = null;
                        order.addLast(slot);
                    }
                } else if (op < 35 && inUse < slots) {
                    ReceiveRequest r = receive(step, 1);
                    at = "seed " + seed + " step " + step + " putFirst";
                    log.putFirst(r);
                    int slot = log.inOrder().get(0);
                    assertThat(request[slot]).as("%s: slot %d was free", at, slot).isNull();
                    request[slot] = r;
                    postedIn[slot] = null;
                    order.addFirst(slot);
                } else if (op < 60 && inUse > 0) {
                    int slot = order.get(rnd.nextInt(inUse));
                    at = "seed " + seed + " step " + step + " onAdapter " + slot + " in epoch " + epoch;
                    ReceiveRequest wire = log.onAdapter(slot);
                    assertThat(wire.wrId()).as(at).isEqualTo((long) epoch << 32 | slot);
                    assertThat(wire.sgl().subList(1, wire.sgl().size())).as(at).isEqualTo(request[slot].sgl());
                    if (lastWireFor.get(slot) == request[slot] && lastWireEpoch.get(slot) == epoch) {
                        assertThat(wire).as("%s: the same receive again in the same epoch is reused", at).isSameAs(lastWire.get(slot));
                    } else {
                        assertThat(wire).as("%s: a new adapter receive", at).isNotSameAs(lastWire.get(slot));
                    }
                    lastWire.put(slot, wire);
                    lastWireFor.put(slot, request[slot]);
                    lastWireEpoch.put(slot, epoch);
                    postedIn[slot] = epoch;
                } else if (op < 66) {
                    log.nextEpoch();
                    epoch++;
                    java.util.Arrays.fill(postedIn, null);
                    at = "seed " + seed + " step " + step + " nextEpoch";
                } else if (op < 86) {
                    int slot = rnd.nextInt(slots + 1) - (rnd.nextInt(8) == 0 ? 1 : 0);
                    int e = switch (rnd.nextInt(4)) {
                        case 0 -> Math.max(0, epoch - 1); // no adapter receive carries epoch -1 (that is "unposted")
                        case 1 -> rnd.nextInt(epoch + 2);
                        default -> epoch;
                    };
                    long wrId = (long) e << 32 | (slot & 0xFFFF_FFFFL);
                    boolean current = slot >= 0 && slot < slots && request[slot] != null && postedIn[slot] != null && postedIn[slot] == e;
                    at = "seed " + seed + " step " + step + " completion of slot " + slot + " epoch " + e;
                    assertThat(log.current(wrId)).as(at).isEqualTo(current);
                    ReceiveRequest taken = log.take(wrId);
                    if (current) {
                        assertThat(taken).as(at).isSameAs(request[slot]);
                        request[slot] = null;
                        postedIn[slot] = null;
                        order.remove(Integer.valueOf(slot));
                    } else {
                        assertThat(taken).as(at).isNull();
                    }
                } else if (op < 93) {
                    int slot = rnd.nextInt(slots);
                    at = "seed " + seed + " step " + step + " takeSlot " + slot;
                    assertThat(log.takeSlot(slot)).as(at).isSameAs(request[slot]);
                    request[slot] = null;
                    postedIn[slot] = null;
                    order.remove(Integer.valueOf(slot));
                } else {
                    int slot = rnd.nextInt(slots);
                    at = "seed " + seed + " step " + step + " unclaim " + slot;
                    log.unclaim(slot);
                    request[slot] = null;
                    postedIn[slot] = null;
                    order.remove(Integer.valueOf(slot));
                }
                assertThat(log.inOrder()).as("%s: posting order", at).isEqualTo(order);
                assertThat(log.pending()).as(at).isEqualTo(order.size());
                for (int s = 0; s < slots; s++) {
                    assertThat(log.peek(s)).as("%s: slot %d", at, s).isSameAs(request[s]);
                    assertThat(log.unposted(s)).as("%s: slot %d unposted", at, s).isEqualTo(request[s] != null && postedIn[s] == null);
                    if (request[s] != null) {
                        long wireId = (long) (postedIn[s] == null ? -1 : postedIn[s]) << 32 | s;
                        assertThat(log.wireId(s)).as("%s: slot %d's id", at, s).isEqualTo(wireId);
                    }
                }
            }
        }
    }
}
