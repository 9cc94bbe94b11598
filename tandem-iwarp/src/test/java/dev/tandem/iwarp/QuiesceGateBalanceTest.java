package dev.tandem.iwarp;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every verb that passes the adapter's quiesce gate leaves it again when it returns, and when it
 * throws: otherwise a reset (or a close) waits its full quiesce time for a thread that is long
 * gone, and reports it as stuck inside a verb.
 */
class QuiesceGateBalanceTest {

    @Test
    void aResetFindsNoThreadInsideAfterEveryVerbReturnedOrThrew() {
        try (Arena arena = Arena.ofShared()) {
            IwarpDevice device = IwarpDevice.open(IwarpConfig.of("127.0.7.1"));
            try {
                ProtectionDomain pd = device.allocateProtectionDomain();
                refused(() -> device.createCompletionQueue(0));
                CompletionQueue cq = device.createCompletionQueue(8);
                device.listen(new InetSocketAddress("127.0.7.1", 0), 1).close();
                refused(() -> device.listen(null, 1));

                MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.MW_BIND);
                refused(() -> pd.registerMemory(arena.allocate(64, 64), Access.REMOTE_WRITE));
                mr.reregister(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.MW_BIND);
                refused(() -> mr.reregister(Access.REMOTE_WRITE));
                pd.allocateMemoryWindow();

                SharedReceiveQueue srq = pd.createSharedReceiveQueue(2, 1);
                refused(() -> pd.createSharedReceiveQueue(0, 1));
                srq.postReceive(new ReceiveRequest(1, new Sge(mr, 0, 64)));
                refused(() -> srq.postReceive(new ReceiveRequest(2, new Sge(mr, 4000, 200))));
                srq.armLimit(1);
                refused(() -> srq.armLimit(0));

                QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
                refused(() -> pd.createQueuePair(null));
                qp.postReceive(new ReceiveRequest(3, new Sge(mr, 0, 64)));
                refused(() -> qp.postReceive(new ReceiveRequest(4, new Sge(mr, 4000, 200))));
                refused(() -> qp.postSend(new WorkRequest.Send(5, new Sge(mr, 0, 64), WrFlags.SIGNALED)));
                refused(() -> qp.modify(QpState.RTS));
                qp.modify(QpState.ERROR);
                cq.poll(WorkCompletion.array(4), 0, 4);
                refused(() -> cq.poll(WorkCompletion.array(4), 0, 5));

                ResetReport report = device.reset(Duration.ZERO);
                assertThat(report.stuckThreads()).as("threads the reset found inside verbs: " + report).isZero();
            } finally {
                device.close();
            }
        }
    }

    private static void refused(Runnable verb) {
        assertThatThrownBy(verb::run).isInstanceOf(RdmaException.class);
    }
}
