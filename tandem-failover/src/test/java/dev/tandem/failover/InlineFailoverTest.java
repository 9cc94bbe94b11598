package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verbs let an application reuse an INLINE request's buffer as soon as {@code postSend} returned. A
 * fail-over posts what the peer was not shown to hold again, possibly long after: it must carry the bytes
 * the application posted, not what it wrote into its buffer since.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InlineFailoverTest {
    private static final int MESSAGES = 40;
    private static final int FAULT_AT = 19;
    private static final int SIZE = 96;
    private final Opened opened = new Opened();

    @AfterEach
    void close() {
        opened.close();
    }

    @Test
    void inlineSendsAndWritesCarryTheirOwnBytesThroughAFailOverThoughTheBufferWasOverwrittenAtOnce() throws Exception {
        // no proof goes before the fault (a proof after 1000 Sends or 10 s): every request posted is posted again
        FailoverDevice a = opened.keep(FailoverDevice.open(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1"))
                .withProofEvery(1000).withProofAfter(Duration.ofSeconds(10))));
        FailoverDevice b = opened.keep(FailoverDevice.open(FailoverConfig.of("b", List.of("iwarp://127.0.1.2", "iwarp://127.0.2.2"))));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemorySegment source = arena.allocate(SIZE, 64); // one buffer, reused by every post
        MemorySegment inbox = arena.allocate((long) SIZE * MESSAGES, 64);
        MemorySegment written = arena.allocate((long) SIZE * MESSAGES, 64);
        MemoryRegion mrA = opened.keep(pdA.registerMemory(source, Access.LOCAL_WRITE));
        MemoryRegion mrInbox = opened.keep(pdB.registerMemory(inbox, Access.LOCAL_WRITE));
        MemoryRegion mrWritten = opened.keep(pdB.registerMemory(written, Access.LOCAL_WRITE | Access.REMOTE_WRITE));
        CompletionQueue cqA = opened.keep(a.createCompletionQueue(4 * MESSAGES));
        CompletionQueue cqB = opened.keep(b.createCompletionQueue(4 * MESSAGES));
        FailoverQueuePair qa = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(2 * MESSAGES, 4)
                .withMaxInline(SIZE)));
        FailoverQueuePair qb = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, MESSAGES)));
        for (int i = 0; i < MESSAGES; i++) {
            qb.postReceive(new ReceiveRequest(i, new Sge(mrInbox, (long) i * SIZE, SIZE)));
        }
        Opened.connect(qa, b, "127.0.1.2", qb);

        for (int i = 0; i < MESSAGES; i++) {
            if (i == FAULT_AT) {
                // the link under the connection goes dark as the next post is made: it and what follows never reach b
                // until they are posted again over the other adapter, long after their buffer was overwritten
                int carrying = a.adapterOf(qa);
                a.faults.arm(FaultPoint.BEFORE_POST, () -> ((LinkControl) a.adapters().get(carrying)).linkDown());
            }
            fill(source, i);
            qa.postSend(new WorkRequest.RdmaWrite(2L * i, new Sge(mrA, 0, SIZE), (long) i * SIZE, mrWritten.rkey(), WrFlags.INLINE));
            source.fill((byte) 0xEE); // reused at once, as the verbs allow
            fill(source, i);
            qa.postSend(new WorkRequest.Send(2L * i + 1, new Sge(mrA, 0, SIZE), WrFlags.INLINE | WrFlags.SIGNALED));
            source.fill((byte) 0xEE);
        }

        WorkCompletion[] wcs = WorkCompletion.array(16);
        int received = 0;
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (received < MESSAGES) {
            assertThat(System.nanoTime()).as("message %d of %d", received, MESSAGES).isLessThan(deadline);
            int n = cqB.poll(wcs);
            for (int i = 0; i < n; i++) {
                assertThat(wcs[i].status()).as("%s", wcs[i]).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wcs[i].opcode()).isEqualTo(CompletionOpcode.RECV);
                assertThat(wcs[i].wrId()).as("receives complete in posting order").isEqualTo(received);
                assertThat(wcs[i].byteLength()).isEqualTo(SIZE);
                assertPattern(inbox.asSlice((long) received * SIZE, SIZE), received, "message");
                assertPattern(written.asSlice((long) received * SIZE, SIZE), received, "the INLINE Write before message");
                received++;
            }
        }
        int sendsDone = 0;
        deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (sendsDone < MESSAGES) {
            assertThat(System.nanoTime()).as("a's Send %d of %d", sendsDone, MESSAGES).isLessThan(deadline);
            int n = cqA.poll(wcs);
            for (int i = 0; i < n; i++) {
                assertThat(wcs[i].status()).as("%s", wcs[i]).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wcs[i].wrId()).isEqualTo(2L * sendsDone + 1);
                sendsDone++;
            }
        }
        assertThat(a.adapterOf(qa)).as("the connection moved off the failed adapter").isNotEqualTo(-1);
    }

    private static void fill(MemorySegment s, int i) {
        s.fill((byte) (i * 7 + 1));
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
    }

    private static void assertPattern(MemorySegment got, int i, String what) {
        assertThat(got.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).as("%s %d: its number", what, i).isEqualTo(i);
        for (long k = 4; k < got.byteSize(); k++) {
            if (got.get(ValueLayout.JAVA_BYTE, k) != (byte) (i * 7 + 1)) {
                throw new AssertionError(what + " " + i + ": byte " + k + " is " + got.get(ValueLayout.JAVA_BYTE, k)
                        + ", posted " + (byte) (i * 7 + 1) + " (0xEE is what the buffer held after the post)");
            }
        }
    }
}
