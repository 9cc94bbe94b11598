package dev.tandem.iwarp.wire;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Send that a raw peer cuts into segments, each with its MO, into a Receive of two entries in two
 * regions: the bytes land entry after entry whatever the cuts, and the placement check (issue 12,
 * row 2) looks at exactly the entries a segment's bytes reach: not an entry the bytes never get to,
 * nor one earlier segments filled to its end, but always one a segment runs on into. And a stream
 * that arrives a few bytes at a time: FPDUs are placed whatever the reads return, and a length
 * field too short for any header is refused as soon as it is in.
 */
class SendSegmentPlacementTest {
    private static final String SERVER_IP = "127.0.1.23";
    private static final String RAW_IP = "127.0.1.24";
    private static final long WR_ID = 31;

    private static byte[] data(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 13 + 5);
        }
        return b;
    }

    /** Sends {@code bytes} {@code step} at a time, 100 µs apart, so the engine's reads see them in pieces. */
    private static void trickle(RawPeer peer, byte[] bytes, int step) {
        for (int i = 0; i < bytes.length; i += step) {
            peer.send(Arrays.copyOfRange(bytes, i, Math.min(bytes.length, i + step)));
            java.util.concurrent.locks.LockSupport.parkNanos(100_000); // pacing, not waiting for anything
        }
    }

    /** A Send segment of MSN 1 at {@code mo}: the last of its message or not. */
    private static byte[] segment(boolean crc, int mo, boolean last, byte[] payload) {
        return FpduBuilder.fpdus(crc).frame(FpduBuilder.untagged(last ? 0x41 : 0x01, 0x43, 0, 0, 1, mo, payload)).bytes();
    }

    /** Sends the last segment, at {@code mo}, which must be refused: checks its Terminate and that the Receive completes LOC_PROT_ERR. */
    private static void sendRefused(Rig rig, boolean crc, int mo, byte[] payload, String what) {
        byte[] refused = segment(crc, mo, true, payload);
        rig.peer.send(refused);
        byte[] term = rig.peer.readFpdu("the Terminate for " + what);
        LiveEngineMalformedFrameTest.checkTerminate(term, crc, TerminateCode.DDP_CATASTROPHIC,
                Arrays.copyOfRange(refused, 2, 2 + FpduDescriptor.UNTAGGED_HEADER_LENGTH + payload.length), what);
        WorkCompletion w = rig.awaitReceive();
        assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.LOC_PROT_ERR);
    }

    private static byte[] bytes(MemorySegment s, long offset, int n) {
        return s.asSlice(offset, n).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void awaitBytes(MemorySegment s, long offset, byte[] expected, String what) {
        long deadline = System.nanoTime() + RawPeer.WAIT.toNanos();
        while (!Arrays.equals(bytes(s, offset, expected.length), expected)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + " was not placed within " + RawPeer.WAIT);
            }
            Thread.onSpinWait();
        }
    }

    /** The adapter under test, a raw peer connected to it, and two regions for a Receive's two entries. */
    private static final class Rig implements AutoCloseable {
        final boolean crc;
        final Responder server;
        final RawPeer peer;
        final Responder.Accepted a;
        final MemoryRegion first;
        final MemoryRegion second;

        Rig(boolean crc) {
            this.crc = crc;
            server = new Responder(SERVER_IP, crc);
            var accepted = server.acceptNext();
            peer = RawPeer.connect(RAW_IP, server.address());
            peer.send(FpduBuilder.request(crc, 4, 4, new byte[0]).bytes());
            peer.readReply();
            a = Responder.await(accepted, "accepting the raw peer");
            first = server.pd.registerMemory(server.arena.allocate(256, 64), Access.LOCAL_WRITE);
            second = server.pd.registerMemory(server.arena.allocate(256, 64), Access.LOCAL_WRITE);
        }

        /** Posts a Receive of 64 bytes at {@code firstOffset} of the first region, then 64 at {@code secondOffset} of the second. */
        void postReceive(long firstOffset, long secondOffset) {
            a.qp().postReceive(new ReceiveRequest(WR_ID, List.of(new Sge(first, firstOffset, 64), new Sge(second, secondOffset, 64))));
        }

        WorkCompletion awaitReceive() {
            WorkCompletion w = Responder.awaitCompletion(a.cq(), "the Receive");
            assertThat(w.wrId()).isEqualTo(WR_ID);
            return w;
        }

        @Override
        public void close() {
            peer.close();
            first.close();
            second.close();
            server.close();
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void segmentsCutAcrossEntriesLandEntryAfterEntry(boolean crc) {
        try (Rig rig = new Rig(crc)) {
            rig.postReceive(8, 16);
            byte[] d = data(128);
            rig.peer.send(segment(crc, 0, false, Arrays.copyOfRange(d, 0, 32)));
            rig.peer.send(segment(crc, 32, false, Arrays.copyOfRange(d, 32, 96))); // ends 32 bytes into the second entry
            rig.peer.send(segment(crc, 96, true, Arrays.copyOfRange(d, 96, 128)));
            WorkCompletion w = rig.awaitReceive();
            assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(w.byteLength()).isEqualTo(128);
            MemorySegment one = rig.first.segment();
            MemorySegment two = rig.second.segment();
            assertThat(bytes(one, 8, 64)).isEqualTo(Arrays.copyOfRange(d, 0, 64));
            assertThat(bytes(two, 16, 64)).isEqualTo(Arrays.copyOfRange(d, 64, 128));
            assertThat(bytes(one, 0, 8)).as("before the first entry").isEqualTo(new byte[8]);
            assertThat(bytes(one, 72, 184)).as("after the first entry").isEqualTo(new byte[184]);
            assertThat(bytes(two, 0, 16)).as("before the second entry").isEqualTo(new byte[16]);
            assertThat(bytes(two, 80, 176)).as("after the second entry").isEqualTo(new byte[176]);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void anEntryTheBytesNeverReachIsNotChecked(boolean crc) {
        try (Rig rig = new Rig(crc)) {
            rig.postReceive(0, 0);
            rig.second.close();
            byte[] d = data(64);
            rig.peer.send(segment(crc, 0, true, d));
            WorkCompletion w = rig.awaitReceive();
            assertThat(w.status()).as("a Send that fits the first entry: %s", w).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(bytes(rig.first.segment(), 0, 64)).isEqualTo(d);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void anEntryEarlierSegmentsFilledIsNotCheckedAgain(boolean crc) {
        try (Rig rig = new Rig(crc)) {
            rig.postReceive(0, 0);
            byte[] d = data(96);
            rig.peer.send(segment(crc, 0, false, Arrays.copyOfRange(d, 0, 64)));
            awaitBytes(rig.first.segment(), 0, Arrays.copyOfRange(d, 0, 64), "the first segment");
            rig.first.close(); // filled already: the next segment starts in the second entry
            rig.peer.send(segment(crc, 64, true, Arrays.copyOfRange(d, 64, 96)));
            WorkCompletion w = rig.awaitReceive();
            assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(w.byteLength()).isEqualTo(96);
            assertThat(bytes(rig.second.segment(), 0, 32)).isEqualTo(Arrays.copyOfRange(d, 64, 96));
        }
    }

    /** A segment that starts past the first entry, in the second one, which was given back after the first segment. */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aSegmentThatStartsInAGivenBackEntryPlacesNothing(boolean crc) {
        try (Rig rig = new Rig(crc)) {
            rig.postReceive(0, 0);
            byte[] d = data(96);
            rig.peer.send(segment(crc, 0, false, Arrays.copyOf(d, 64)));
            awaitBytes(rig.first.segment(), 0, Arrays.copyOf(d, 64), "the first segment, the whole first entry");
            rig.second.close();
            sendRefused(rig, crc, 64, Arrays.copyOfRange(d, 64, 96), "a segment starting in a given-back entry");
            assertThat(bytes(rig.second.segment(), 0, 64)).as("memory given back: nothing of the second segment").isEqualTo(new byte[64]);
        }
    }

    static Stream<Arguments> givenBack() {
        return Stream.of(true, false).flatMap(deregistered -> Stream.of(Arguments.of(deregistered, true), Arguments.of(deregistered, false)));
    }

    /** The second entry's region is deregistered, or reregistered without LOCAL_WRITE, between two segments. */
    @ParameterizedTest(name = "deregistered={0} crc={1}")
    @MethodSource("givenBack")
    void aSegmentThatRunsOnIntoAGivenBackEntryPlacesNothing(boolean deregistered, boolean crc) {
        try (Rig rig = new Rig(crc)) {
            rig.postReceive(0, 0);
            byte[] d = data(96);
            rig.peer.send(segment(crc, 0, false, Arrays.copyOfRange(d, 0, 32)));
            awaitBytes(rig.first.segment(), 0, Arrays.copyOfRange(d, 0, 32), "the first segment");
            // the next segment starts in the first entry and runs on into the second
            if (deregistered) {
                rig.second.close();
            } else {
                rig.second.reregister(Access.REMOTE_READ);
            }
            sendRefused(rig, crc, 32, Arrays.copyOfRange(d, 32, 96), "a segment into a given-back entry");
            assertThat(bytes(rig.first.segment(), 32, 32)).as("not even the part for the entry still valid").isEqualTo(new byte[32]);
            AsyncEvent e = rig.server.awaitEvent(rig.a.qp(), "the refused segment");
            assertThat(e.type()).as(e.detail()).isEqualTo(AsyncEventType.QP_ACCESS_ERROR);
            assertThat(e.detail()).contains((deregistered ? ", deregistered" : ", no longer valid for local write") + " since the receive was posted");
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void fpdusTrickledAFewBytesAtATimeArePlacedAsAWholeStreamWouldBe(boolean crc) {
        try (Rig rig = new Rig(crc)) {
            int msn = 1;
            for (int step : new int[] {1, 3, 7}) {
                rig.postReceive(0, 0);
                byte[] d = data(100);
                for (int i = 0; i < d.length; i++) {
                    d[i] += (byte) step; // every byte differs from the last round's
                }
                byte[] stream = FpduBuilder.fpdus(crc).write(rig.a.region().rkey(), 512, true, Arrays.copyOf(d, 37))
                        .frame(FpduBuilder.untagged(0x41, 0x43, 0, 0, msn++, 0, Arrays.copyOfRange(d, 37, 100))).bytes();
                trickle(rig.peer, stream, step);
                WorkCompletion w = rig.awaitReceive();
                assertThat(w.status()).as("%d bytes at a time: %s", step, w).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(w.byteLength()).isEqualTo(63);
                assertThat(bytes(rig.first.segment(), 0, 63)).as("the Send, %d bytes at a time", step).isEqualTo(Arrays.copyOfRange(d, 37, 100));
                assertThat(bytes(rig.a.region().segment(), 512, 37)).as("the Write, %d bytes at a time", step).isEqualTo(Arrays.copyOf(d, 37));
            }
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aLengthFieldTooShortForAnyHeaderIsRefusedAsSoonAsItIsIn(boolean crc) {
        try (Rig rig = new Rig(crc)) {
            rig.postReceive(0, 0);
            trickle(rig.peer, new byte[] {0, 0}, 1); // ULPDU_LENGTH 0, and nothing after it
            byte[] term = rig.peer.readFpdu("the Terminate for ULPDU_LENGTH 0");
            LiveEngineMalformedFrameTest.checkTerminate(term, crc, TerminateCode.DDP_CATASTROPHIC, null, "ULPDU_LENGTH 0 alone");
            assertThat(rig.awaitReceive().status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aPeerThatResetsTheConnectionMidMessageEndsItWithQpFatal(boolean crc) {
        try (Rig rig = new Rig(crc)) {
            rig.postReceive(0, 0);
            byte[] d = data(32);
            rig.peer.send(segment(crc, 0, false, d));
            awaitBytes(rig.first.segment(), 0, d, "the first segment");
            rig.peer.reset();
            AsyncEvent e = rig.server.awaitEvent(rig.a.qp(), "the reset connection");
            assertThat(e.type()).as(e.detail()).isEqualTo(AsyncEventType.QP_FATAL);
            assertThat(e.detail()).contains("connection lost");
            assertThat(rig.awaitReceive().status()).as("the Receive the message was filling").isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        }
    }
}
