package dev.tandem.bench;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.time.Duration;

/**
 * write_bw's stream on a {@link LoopbackLink}: RDMA Writes of {@code size} bytes from A into B, every
 * {@link #SIGNAL_EVERY}th signalled, at most {@link #WINDOW} in flight (perftest's tx-depth). A
 * signalled completion retires the writes before it too, so their send-queue slots are free again.
 * Runs on the calling thread alone; it starts none.
 */
final class WriteStream implements AutoCloseable {
    /** One write in this many is signalled. */
    static final int SIGNAL_EVERY = 16;
    /** Writes in flight at most. */
    static final int WINDOW = 128;

    final LoopbackLink link;
    private final WorkRequest unsignalled;
    private final WorkRequest signalled;
    private final WorkCompletion[] wc = WorkCompletion.array(16);
    private long posted;
    private long retired;

    WriteStream(boolean crc, int size) throws Exception {
        link = new LoopbackLink(crc, size);
        unsignalled = new WorkRequest.RdmaWrite(1, new Sge(link.mrA, 0, size), 0, link.mrB.rkey(), 0);
        signalled = new WorkRequest.RdmaWrite(2, new Sge(link.mrA, 0, size), 0, link.mrB.rkey(), WrFlags.SIGNALED);
    }

    /** Posts one write, first polling until the window has room; returns the completions polled. */
    int writeOne() {
        int polled = 0;
        while (posted - retired >= WINDOW) {
            polled += poll();
        }
        posted++;
        link.qpA.postSend(posted % SIGNAL_EVERY == 0 ? signalled : unsignalled);
        return polled;
    }

    private int poll() {
        int n = link.cqA.poll(wc);
        for (int i = 0; i < n; i++) {
            if (wc[i].status() != CompletionStatus.SUCCESS) {
                throw new IllegalStateException("RDMA Write failed: " + wc[i]);
            }
        }
        retired += (long) n * SIGNAL_EVERY;
        return n;
    }

    /** Writes posted so far. */
    long posted() {
        return posted;
    }

    /** Waits (at most {@code limit}) for every signalled write posted so far to complete. */
    void drain(Duration limit) {
        long target = posted - posted % SIGNAL_EVERY;
        long deadline = System.nanoTime() + limit.toNanos();
        while (retired < target) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + retired + " of " + target + " writes completed within " + limit);
            }
            poll();
        }
    }

    @Override
    public void close() {
        try {
            drain(Duration.ofSeconds(10));
        } finally {
            link.close();
        }
    }
}
