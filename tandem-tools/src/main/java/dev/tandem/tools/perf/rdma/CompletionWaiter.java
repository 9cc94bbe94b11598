package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.ConnectionLostException;
import dev.tandem.tools.perf.PerfException;
import dev.tandem.tools.perf.WaitMode;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;

import java.time.Duration;

/**
 * Waits for completions the way the run asks: busy-polling the CQ, or blocking in
 * {@link CompletionQueue#await}. Completions land in a preallocated array; a completion in error
 * ends the run with its details. A flushed completion means the connection is gone: it is noted
 * (the caller skips it) and the next wait fails, so a side that already has everything it
 * needs is not failed by the peer closing first. Nothing here allocates on the good path.
 *
 * <p>While a wait stays quiet, the waiter judges the peer's liveness ({@link Liveness}): it posts
 * its own probe, an RDMA Read of the peer's progress word, at most one at a time. Probe completions
 * are the waiter's own: they never reach the caller, and the caller's count of posted and completed
 * requests does not include them (the send queue has one slot more for the probe).
 */
final class CompletionWaiter {
    /** The wrId of a probe Read ("probe"); the patterns' own requests use small ids. */
    static final long PROBE_WR_ID = 0x70_72_6f_62_65L;
    /** Send-queue slots the waiter needs beyond the caller's: one probe in flight. */
    static final int PROBE_SLOTS = 1;
    /** Busy-wait turns between two looks at the clock. */
    private static final int CHECK_EVERY = 4096;

    private final CompletionQueue cq;
    private final QueuePair qp;
    private final WaitMode mode;
    private final Duration slice;
    private final WorkCompletion[] wc;
    private final StatusBlock status;
    private final Liveness liveness;
    private final String side;
    private final String what;
    /** The probe Read, once the peer's key is known. */
    private WorkRequest probe;
    private WorkCompletion flushed;
    private int turns;
    private boolean clockStarted;
    private boolean sawLife;

    CompletionWaiter(CompletionQueue cq, QueuePair qp, WaitMode mode, int batch, StatusBlock status, Patience patience, String side) {
        this.cq = cq;
        this.qp = qp;
        this.mode = mode;
        this.slice = patience.probeAfter();
        this.wc = WorkCompletion.array(batch);
        this.status = status;
        this.side = side;
        this.what = side + " waiting for a completion";
        this.liveness = new Liveness(patience, what);
    }

    /** From now on quiet waits probe the peer with {@code probeRead} (an RDMA Read of its progress word). */
    void watch(WorkRequest probeRead) {
        this.probe = probeRead;
    }

    /** Waits for at least one completion; returns how many are in {@link #get}. */
    int await() {
        failIfFlushed();
        int n = check(cq.poll(wc));
        if (n > 0) {
            return n;
        }
        if (mode == WaitMode.EVENT) {
            return block();
        }
        startWait();
        while ((n = check(cq.poll(wc))) == 0) {
            failIfFlushed();
            idle();
        }
        return n;
    }

    /** Blocks in slices of the probe interval, judging the peer after each quiet slice. */
    private int block() {
        liveness.begin(System.nanoTime());
        int n;
        while ((n = check(cq.await(wc, slice))) == 0) {
            failIfFlushed();
            tick(System.nanoTime());
        }
        return n;
    }

    /**
     * Takes whatever completions are there now (maybe none), inside a longer wait of the caller's
     * ({@link #startWait}, then {@link #idle} on each empty turn). Completions count as life.
     */
    int pollNow() {
        failIfFlushed();
        int n = check(cq.poll(wc));
        if (n > 0) {
            sawLife = true;
        }
        return n;
    }

    /** The caller starts a wait of its own (for a byte in memory), made of {@link #pollNow} and {@link #idle}. */
    void startWait() {
        turns = 0;
        clockStarted = false;
        sawLife = false;
    }

    /** One turn of a busy wait without news: hints the CPU, and now and then judges the peer. */
    void idle() {
        Thread.onSpinWait();
        if ((++turns & (CHECK_EVERY - 1)) == 0) {
            long now = System.nanoTime();
            if (!clockStarted) {
                clockStarted = true;
                sawLife = false;
                liveness.begin(now);
            } else {
                tick(now);
            }
        }
    }

    /** Before closing: lets a probe still in flight come back (or be flushed), so nothing is outstanding. */
    void settle() {
        startWait();
        while (liveness.probeInFlight() && flushed == null) {
            if (check(cq.poll(wc)) == 0) {
                idle();
            }
        }
    }

    WorkCompletion get(int i) {
        return wc[i];
    }

    private void tick(long now) {
        if (sawLife) {
            sawLife = false;
            liveness.life(now);
        }
        if (probe != null && liveness.probeDue(now)) {
            qp.postSend(probe);
            liveness.probePosted(now);
        }
        liveness.check(now);
    }

    private void failIfFlushed() {
        if (flushed != null) {
            throw new ConnectionLostException(side + ": the connection went down while this side "
                    + "still waited for work; the peer closed it (a failing tandem perf side closes its connection: its own output "
                    + "says why) or the link failed. First flushed request: " + flushed);
        }
    }

    /** Checks the {@code n} new completions, takes out the probe's; returns how many are left for the caller. */
    private int check(int n) {
        int visible = n;
        int i = 0;
        while (i < visible) {
            WorkCompletion c = wc[i];
            CompletionStatus s = c.status();
            if (c.wrId() == PROBE_WR_ID && c.opcode() == CompletionOpcode.RDMA_READ) {
                probeCompleted(c);
                // move the probe's slot to the end, keeping the order of the others
                System.arraycopy(wc, i + 1, wc, i, visible - 1 - i);
                wc[visible - 1] = c;
                visible--;
                continue;
            }
            if (s == CompletionStatus.WR_FLUSH_ERR) {
                noteFlushed(c);
            } else if (s != CompletionStatus.SUCCESS) {
                throw new PerfException("work request failed: " + c);
            }
            i++;
        }
        return visible;
    }

    private void probeCompleted(WorkCompletion c) {
        switch (c.status()) {
            case SUCCESS -> liveness.probeAnswered(System.nanoTime(), status.probed());
            case WR_FLUSH_ERR -> {
                liveness.probeFlushed();
                noteFlushed(c);
            }
            default -> throw new PerfException(what + ": the liveness probe (an RDMA Read of the peer's progress word) failed: " + c);
        }
    }

    private void noteFlushed(WorkCompletion c) {
        if (flushed == null) {
            flushed = new WorkCompletion().copyFrom(c);
        }
    }
}
