package dev.tandem.failover;

import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mailbox records and arrival marks. A test plays the wire: it carries each RDMA Write a mailbox posts
 * (to a recording QP) into the inbox it names; the writer writes to its own inbox, so one mailbox is
 * both ends. The region needs a fail-over protection domain: one device for the whole class.
 */
class MailboxTest {
    private static final int PEER_STAG = 0x4242;
    private static final Opened opened = new Opened();
    private static FailoverProtectionDomain pd;

    @BeforeAll
    static void openDevice() {
        FailoverDevice device = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=mailbox"));
        pd = opened.keep((FailoverProtectionDomain) device.allocateProtectionDomain());
    }

    @AfterAll
    static void closeDevice() {
        opened.close();
    }

    /** Writes {@code r} over path {@code path} and carries the Write into the writer's own inbox; returns the Write. */
    private static WorkRequest.RdmaWrite sendToSelf(Mailbox box, int path, Mailbox.Record r) {
        List<WorkRequest> posted = new ArrayList<>();
        box.send(Fakes.recordingQp(1, posted), path, PEER_STAG, 0x400 + r.type(), r);
        assertThat(posted).hasSize(1);
        WorkRequest.RdmaWrite w = (WorkRequest.RdmaWrite) posted.get(0);
        deliver(w);
        return w;
    }

    /** The wire: the Write's bytes land at its remote offset of the (same) region. */
    private static void deliver(WorkRequest.RdmaWrite w) {
        Sge from = w.sgl().get(0);
        MemorySegment s = from.region().segment();
        MemorySegment.copy(s, from.offset(), s, w.remoteOffset(), from.length());
    }

    private static Mailbox.Record record(int seq, int type, int path, int generation) {
        byte[] lost = new byte[64];
        lost[path] = Mailbox.generationByte(generation);
        return new Mailbox.Record(seq, type, path, generation, 1000 + seq, 2000 + seq, 0x5EED_0000_0000_0001L, lost);
    }

    private static void assertSameRecord(Mailbox.Record actual, Mailbox.Record expected, String what) {
        assertThat(actual).as("%s: a record was read", what).isNotNull();
        assertThat(actual.seq()).as("%s: seq", what).isEqualTo(expected.seq());
        assertThat(actual.type()).as("%s: type", what).isEqualTo(expected.type());
        assertThat(actual.path()).as("%s: path", what).isEqualTo(expected.path());
        assertThat(actual.generation()).as("%s: generation", what).isEqualTo(expected.generation());
        assertThat(actual.lastReliablySent()).as("%s: last reliably sent", what).isEqualTo(expected.lastReliablySent());
        assertThat(actual.lastReliablyReceived()).as("%s: last reliably received", what).isEqualTo(expected.lastReliablyReceived());
        assertThat(actual.incarnation()).as("%s: incarnation", what).isEqualTo(expected.incarnation());
        assertThat(actual.lost()).as("%s: lost paths", what).isEqualTo(expected.lost());
    }

    // ---------------------------------------------------------------- records without a mailbox

    @Test
    void aGenerationByteIsNeverZeroAndTellsConsecutiveSetUpsApart() {
        for (int g = 1; g <= 255; g++) {
            assertThat(Mailbox.generationByte(g)).as("generation %d fits as it is", g).isEqualTo((byte) g);
        }
        for (int g = 1; g < 100_000; g++) {
            byte b = Mailbox.generationByte(g);
            assertThat(b).as("generation %d", g).isNotZero();
            assertThat(Mailbox.generationByte(g + 1)).as("generations %d and %d", g, g + 1).isNotEqualTo(b);
            assertThat(Mailbox.generationByte(g + 255)).as("the byte cycles through 255 values").isEqualTo(b);
        }
    }

    @Test
    void aReportSaysWhichSetUpOfAPathTheWriterLost() {
        byte[] lost = new byte[64];
        lost[5] = Mailbox.generationByte(3);
        lost[63] = Mailbox.generationByte(300);
        Mailbox.Record r = new Mailbox.Record(1, Mailbox.REPORT, 0, 0, 0, 0, 0, lost);
        assertThat(r.lostPath(5, 3)).isTrue();
        assertThat(r.lostPath(5, 4)).as("a later set-up of path 5 is not lost").isFalse();
        assertThat(r.lostPath(5, 2)).isFalse();
        assertThat(r.lostPath(6, 3)).as("path 6 is not lost").isFalse();
        assertThat(r.lostPath(63, 300)).isTrue();
        assertThat(r.lostPath(4, 0)).as("a path not lost is not lost in any generation, not even one whose byte is 0").isFalse();
        assertThat(new Mailbox.Record(1, Mailbox.MIGRATED, 0, 0, 0, 0, 0, null).lost()).as("no lost paths: 64 zeros")
                .hasSize(64).containsOnly(0);
    }

    // ---------------------------------------------------------------- records through a mailbox

    @Test
    void aRecordIsWrittenToThePeersSlotOfItsPathAndKindAndReadsBackWhole() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            Random rnd = new Random(3);
            List<Long> offsets = new ArrayList<>();
            for (int path = 0; path < 64; path++) {
                for (int type = Mailbox.REPORT; type <= Mailbox.BYE; type++) {
                    byte[] lost = new byte[64];
                    rnd.nextBytes(lost);
                    Mailbox.Record r = new Mailbox.Record(0x8000_0000 + path * 3 + type, type, path, 1 + rnd.nextInt(0xFFFF), rnd.nextInt(),
                            rnd.nextInt(), rnd.nextLong(), lost);
                    WorkRequest.RdmaWrite w = sendToSelf(box, path, r);
                    String what = "path " + path + " type " + type;
                    assertThat(w.rkey()).as("%s: into the peer's mailbox", what).isEqualTo(PEER_STAG);
                    assertThat(w.wrId()).as(what).isEqualTo(0x400 + type);
                    assertThat(w.flags()).as("%s: signalled: its completion says it left", what).isEqualTo(WrFlags.SIGNALED);
                    assertThat(w.sgl()).hasSize(1);
                    assertThat(w.sgl().get(0).length()).as("%s: one record", what).isEqualTo(96);
                    assertThat(w.sgl().get(0).region().rkey()).as("%s: from this side's region", what).isEqualTo(box.stag());
                    assertThat(w.sgl().get(0).offset()).as("%s: from the outbox, behind the inbox", what).isEqualTo(Mailbox.MARKS + 16 + w.remoteOffset());
                    offsets.add(w.remoteOffset());
                    assertSameRecord(box.read(type), r, what);
                }
            }
            assertThat(offsets).as("a slot per path and kind, 96 bytes each, ahead of the marks")
                    .doesNotHaveDuplicates().allMatch(o -> o % 96 == 0 && o >= 0 && o + 96 <= Mailbox.MARKS);
            assertThat(Mailbox.MARKS).isEqualTo(64 * 3 * 96);
        }
    }

    @Test
    void theNewestRecordOfAKindWinsWhicheverPathItCameOver() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            assertThat(box.read(Mailbox.REPORT)).as("an empty inbox").isNull();
            Mailbox.Record r5 = record(5, Mailbox.REPORT, 3, 1);
            sendToSelf(box, 3, r5);
            Mailbox.Record r7 = record(7, Mailbox.REPORT, 9, 2);
            sendToSelf(box, 9, r7);
            assertSameRecord(box.read(Mailbox.REPORT), r7, "7 is newer than 5");
            sendToSelf(box, 3, record(6, Mailbox.REPORT, 3, 1)); // a slow path's late record
            assertSameRecord(box.read(Mailbox.REPORT), r7, "a late 6 does not hide 7");
            Mailbox.Record big = record(0x8000_0001, Mailbox.REPORT, 0, 1);
            sendToSelf(box, 0, big);
            assertSameRecord(box.read(Mailbox.REPORT), big, "sequences compare unsigned");
            assertThat(box.read(Mailbox.MIGRATED)).as("no MIGRATED written").isNull();
            assertThat(box.read(Mailbox.BYE)).isNull();
            Mailbox.Record bye = record(9, Mailbox.BYE, 63, 4);
            sendToSelf(box, 63, bye);
            assertSameRecord(box.read(Mailbox.BYE), bye, "the last path's slot");

            box.clear();
            assertThat(box.read(Mailbox.REPORT)).as("a new connection finds nothing of the last").isNull();
            assertThat(box.read(Mailbox.BYE)).isNull();
        }
    }

    @Test
    void aRecordDamagedAnywhereOutsideTheReservedWordIsNotRead() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            Mailbox.Record r = record(12, Mailbox.MIGRATED, 10, 700);
            r.lost()[0] = 1;
            r.lost()[40] = (byte) 0x80;
            WorkRequest.RdmaWrite w = sendToSelf(box, 10, r);
            MemorySegment s = w.sgl().get(0).region().segment();
            long at = w.remoteOffset();
            for (int i = 0; i < 96; i++) {
                for (int bit = 0; bit < 8; bit++) {
                    byte was = s.get(ValueLayout.JAVA_BYTE, at + i);
                    s.set(ValueLayout.JAVA_BYTE, at + i, (byte) (was ^ 1 << bit));
                    Mailbox.Record read = box.read(Mailbox.MIGRATED);
                    if (i >= 28 && i < 32) {
                        assertSameRecord(read, r, "byte " + i + " is reserved");
                    } else {
                        assertThat(read).as("bit %d of byte %d flipped: the check fails", bit, i).isNull();
                    }
                    s.set(ValueLayout.JAVA_BYTE, at + i, was);
                }
            }
            assertSameRecord(box.read(Mailbox.MIGRATED), r, "repaired");
        }
    }

    @Test
    void aRecordInTheSlotOfAnotherKindOrWithoutASequenceIsNotRead() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            WorkRequest.RdmaWrite w = sendToSelf(box, 2, record(4, Mailbox.REPORT, 2, 1));
            MemorySegment s = w.sgl().get(0).region().segment();
            MemorySegment.copy(s, w.remoteOffset(), s, w.remoteOffset() + 96, 96); // the same bytes in the MIGRATED slot of path 2
            assertThat(box.read(Mailbox.MIGRATED)).as("a REPORT is no MIGRATED").isNull();
            assertThat(box.read(Mailbox.REPORT)).isNotNull();

            box.clear();
            sendToSelf(box, 2, record(0, Mailbox.REPORT, 2, 1));
            assertThat(box.read(Mailbox.REPORT)).as("sequence 0: never written").isNull();
        }
    }

    @Test
    void aRecordWrittenNextToAnotherDoesNotDisturbItWhileItsWriteIsInFlight() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            Mailbox.Record report = record(20, Mailbox.REPORT, 5, 1);
            java.util.Arrays.fill(report.lost(), (byte) 7);
            List<WorkRequest> posted = new ArrayList<>();
            box.send(Fakes.recordingQp(1, posted), 5, PEER_STAG, 1, report);
            Mailbox.Record migrated = record(21, Mailbox.MIGRATED, 5, 1);
            box.send(Fakes.recordingQp(1, posted), 5, PEER_STAG, 2, migrated); // the slot right behind the REPORT's
            Mailbox.Record bye = record(22, Mailbox.BYE, 5, 1);
            box.send(Fakes.recordingQp(1, posted), 5, PEER_STAG, 3, bye);
            posted.forEach(w -> deliver((WorkRequest.RdmaWrite) w)); // the adapter reads the outbox only as it transmits
            assertSameRecord(box.read(Mailbox.REPORT), report, "the REPORT");
            assertSameRecord(box.read(Mailbox.MIGRATED), migrated, "the MIGRATED");
            assertSameRecord(box.read(Mailbox.BYE), bye, "the BYE");
        }
    }

    /**
     * Only the two mark slots are read as marks: not the outbox behind them, even where its first record
     * happens to read as a whole mark (its sequence as the id, its type, path and generation as the check).
     */
    @Test
    void theOutboxBehindTheMarksIsNeverReadAsAMark() {
        int seq = 0x11;
        int key = 0;
        while ((markCheck(seq, key) >>> 16) != (Mailbox.REPORT << 8)) { // type REPORT, path 0: the first outbox record's word 1
            key++;
        }
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            box.send(Fakes.recordingQp(1, new ArrayList<>()), 0, PEER_STAG, 1,
                    new Mailbox.Record(seq, Mailbox.REPORT, 0, markCheck(seq, key) & 0xFFFF, 0, 0, 0, null));
            assertThat(box.placedUpTo(key)).as("no mark arrived (key %d)", key).isZero();
        }
    }

    /** The arrival mark's check as Mailbox documents it: the id mixed with the connection's key. */
    private static int markCheck(int id, int key) {
        long x = (id & 0xFFFF_FFFFL) * 0x9E3779B97F4A7C15L ^ key * 0xBF58476D1CE4E5B9L;
        return (int) (x ^ x >>> 29) | 1;
    }

    /**
     * The bytes of one record, check included: both sides of a connection must compute the same check,
     * so a change to the format or the check function must show here (and needs a new hello version).
     */
    @Test
    void theRecordFormatIsPinned() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            byte[] lost = new byte[64];
            lost[1] = 2;
            lost[62] = (byte) 0xFF;
            Mailbox.Record r = new Mailbox.Record(0x01020304, Mailbox.REPORT, 0x21, 0x0506, 0x0708090A, 0x0B0C0D0E,
                    0x0F10111213141516L, lost);
            WorkRequest.RdmaWrite w = sendToSelf(box, 0x21, r);
            MemorySegment s = w.sgl().get(0).region().segment();
            byte[] bytes = s.asSlice(w.remoteOffset(), 32).toArray(ValueLayout.JAVA_BYTE);
            assertThat(bytes).as("the header words of the record").isEqualTo(new byte[] {
                1, 2, 3, 4, 1, 0x21, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                CHECK[0], CHECK[1], CHECK[2], CHECK[3], 0, 0, 0, 0});
            assertThat(s.asSlice(w.remoteOffset() + 32, 64).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(lost);
        }
    }

    /** The check of the record in {@link #theRecordFormatIsPinned} (0x2DD1F227, computed apart from Mailbox from its formula). */
    private static final byte[] CHECK = {0x2D, (byte) 0xD1, (byte) 0xF2, 0x27};

    // ---------------------------------------------------------------- arrival marks

    /** A mark's Write is made once per slot and reused, but never with another request id or another peer's mailbox. */
    @Test
    void aMarksWriteCarriesTheIdAndThePeersMailboxItWasAskedFor() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            WorkRequest.RdmaWrite first = (WorkRequest.RdmaWrite) box.mark(1, 5, PEER_STAG, 7);
            box.mark(2, 5, PEER_STAG, 7);
            assertThat(box.mark(3, 5, PEER_STAG, 7)).as("the first slot's Write, made once").isSameAs(first);
            box.mark(4, 5, PEER_STAG, 7);
            WorkRequest.RdmaWrite otherId = (WorkRequest.RdmaWrite) box.mark(5, 5, PEER_STAG, 8);
            assertThat(otherId.wrId()).isEqualTo(8);
            box.mark(6, 5, PEER_STAG, 8);
            WorkRequest.RdmaWrite otherPeer = (WorkRequest.RdmaWrite) box.mark(7, 5, PEER_STAG + 1, 8);
            assertThat(otherPeer.rkey()).isEqualTo(PEER_STAG + 1);
            assertThat(otherPeer.remoteOffset()).as("still the first slot").isEqualTo(Mailbox.MARKS);
        }
    }

    @Test
    void arrivalMarksAlternateBetweenTwoSlotsAndTheHighestWholeOneCounts() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            int key = 0x1357;
            assertThat(box.placedUpTo(key)).as("no mark yet").isZero();
            WorkRequest m1 = box.mark(10, key, PEER_STAG, 77);
            WorkRequest.RdmaWrite w1 = (WorkRequest.RdmaWrite) m1;
            assertThat(w1.flags()).as("INLINE: its bytes are copied as it is posted, unsignalled").isEqualTo(WrFlags.INLINE);
            assertThat(w1.wrId()).isEqualTo(77);
            assertThat(w1.rkey()).isEqualTo(PEER_STAG);
            assertThat(w1.remoteOffset()).as("the first mark slot").isEqualTo(Mailbox.MARKS);
            assertThat(w1.sgl().get(0).length()).isEqualTo(8);
            assertThat(w1.sgl().get(0).offset()).as("from the outbox's mark slot").isEqualTo(Mailbox.MARKS + 16 + Mailbox.MARKS);
            deliver(w1);
            assertThat(box.placedUpTo(key)).isEqualTo(10);
            assertThat(box.placedUpTo(key + 1)).as("another connection's key").isZero();

            WorkRequest.RdmaWrite w2 = (WorkRequest.RdmaWrite) box.mark(11, key, PEER_STAG, 78);
            assertThat(w2.remoteOffset()).as("the second mark slot").isEqualTo(Mailbox.MARKS + 8);
            assertThat(w2.sgl().get(0).offset()).isEqualTo(Mailbox.MARKS + 16 + Mailbox.MARKS + 8);
            WorkRequest.RdmaWrite w3 = (WorkRequest.RdmaWrite) box.mark(12, key, PEER_STAG, 79);
            assertThat(w3.remoteOffset()).as("back to the first").isEqualTo(Mailbox.MARKS);
            deliver(w2);
            assertThat(box.placedUpTo(key)).isEqualTo(11);

            MemorySegment s = w1.sgl().get(0).region().segment();
            s.set(ValueLayout.JAVA_BYTE, Mailbox.MARKS + 8 + 3, (byte) 12); // mark 11 torn: its id says 12, its check does not
            assertThat(box.placedUpTo(key)).as("a torn mark leaves the other").isEqualTo(10);
            deliver(w3);
            assertThat(box.placedUpTo(key)).isEqualTo(12);

            WorkRequest.RdmaWrite big = (WorkRequest.RdmaWrite) box.mark(0x8000_0000, key, PEER_STAG, 80);
            deliver(big);
            assertThat(box.placedUpTo(key)).as("ids compare unsigned").isEqualTo(0x8000_0000);

            box.clear();
            assertThat(box.placedUpTo(key)).isZero();
            assertThat(((WorkRequest.RdmaWrite) box.mark(13, key, PEER_STAG, 81)).remoteOffset()).as("a clear starts at the first slot again")
                    .isEqualTo(Mailbox.MARKS);
        }
    }

    @Test
    void aMarkDamagedAnywhereIsNotRead() {
        try (Mailbox box = new Mailbox(pd::registerInternal)) {
            int key = -5;
            WorkRequest.RdmaWrite w = (WorkRequest.RdmaWrite) box.mark(0x00C0FFEE, key, PEER_STAG, 1);
            deliver(w);
            MemorySegment s = w.sgl().get(0).region().segment();
            for (int i = 0; i < 8; i++) {
                for (int bit = 0; bit < 8; bit++) {
                    byte was = s.get(ValueLayout.JAVA_BYTE, Mailbox.MARKS + i);
                    s.set(ValueLayout.JAVA_BYTE, Mailbox.MARKS + i, (byte) (was ^ 1 << bit));
                    assertThat(box.placedUpTo(key)).as("bit %d of byte %d flipped", bit, i).isZero();
                    s.set(ValueLayout.JAVA_BYTE, Mailbox.MARKS + i, was);
                }
            }
            assertThat(box.placedUpTo(key)).isEqualTo(0x00C0FFEE);
            byte[] mark = s.asSlice(Mailbox.MARKS, 8).toArray(ValueLayout.JAVA_BYTE);
            assertThat(mark).as("the mark's format: id, then its check (pinned: both sides compute it)")
                    .isEqualTo(new byte[] {0, (byte) 0xC0, (byte) 0xFF, (byte) 0xEE, MARK_CHECK[0], MARK_CHECK[1], MARK_CHECK[2], MARK_CHECK[3]});
        }
    }

    /** The check of mark 0x00C0FFEE under key -5 (0xCAB853F3, computed apart from Mailbox from its formula). */
    private static final byte[] MARK_CHECK = {(byte) 0xCA, (byte) 0xB8, 0x53, (byte) 0xF3};

    @Test
    void closingReleasesTheRegionAndItsMemory() {
        Mailbox box = new Mailbox(pd::registerInternal);
        WorkRequest.RdmaWrite w = (WorkRequest.RdmaWrite) box.mark(1, 1, PEER_STAG, 1);
        assertThat(w.sgl().get(0).region().isValid()).isTrue();
        box.close();
        assertThat(w.sgl().get(0).region().isValid()).as("deregistered").isFalse();
        assertThat(w.sgl().get(0).region().segment().scope().isAlive()).as("freed").isFalse();
    }
}
