package dev.tandem.tools.demo;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** One side of the demo connection: a PD, a 64 KiB region open to the peer, a CQ and a QP. */
final class DemoSide implements AutoCloseable {
    static final int REGION_BYTES = 64 * 1024;
    static final Duration WAIT = Duration.ofSeconds(5);

    final String label;
    final RdmaDevice device;
    final Arena arena = Arena.ofShared();
    final ProtectionDomain pd;
    final MemorySegment memory;
    final MemoryRegion mr;
    final CompletionQueue cq;
    final QueuePair qp;
    private final WorkCompletion[] wc = WorkCompletion.array(8);
    private final List<WorkCompletion> pending = new ArrayList<>();

    DemoSide(String label, RdmaDevice device) {
        this.label = label;
        this.device = device;
        this.pd = device.allocateProtectionDomain();
        this.memory = arena.allocate(REGION_BYTES, 64);
        this.mr = pd.registerMemory(memory, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        this.cq = device.createCompletionQueue(64);
        this.qp = pd.createQueuePair(QueuePairConfig.of(cq).withDepths(16, 16));
    }

    Sge sge(long offset, int length) {
        return new Sge(mr, offset, length);
    }

    /** Waits for the completion of {@code wrId}, keeping others that arrive first for later calls. */
    WorkCompletion awaitCompletion(long wrId, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (int i = 0; i < pending.size(); i++) {
                if (pending.get(i).wrId() == wrId) {
                    return pending.remove(i);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new DemoFailure(label + ": no completion for " + what + " within " + WAIT.toSeconds() + " s");
            }
            int n = cq.await(wc, Duration.ofNanos(left));
            for (int i = 0; i < n; i++) {
                pending.add(new WorkCompletion().copyFrom(wc[i]));
            }
        }
    }

    @Override
    public void close() {
        try {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
        } finally {
            arena.close();
        }
    }
}
