package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.PerfException;
import dev.tandem.tools.perf.Stall;
import dev.tandem.tools.perf.WaitMode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkCompletion;

/**
 * Waits for completions the way the run asks: busy-polling the CQ, or blocking in
 * {@link CompletionQueue#await}. Completions land in a preallocated array; a completion in error
 * ends the run with its details. A flushed completion means the connection is gone: it is noted
 * (the caller skips it) and the next wait fails, so a side that already has everything it
 * needs is not failed by the peer closing first. Nothing here allocates on the good path.
 */
final class CompletionWaiter {
    private static final long STALL_NANOS = Stall.TIMEOUT.toNanos();
    private final CompletionQueue cq;
    private final WaitMode mode;
    private final WorkCompletion[] wc;
    private final Stall stall;
    private WorkCompletion flushed;

    CompletionWaiter(CompletionQueue cq, WaitMode mode, int batch, String side) {
        this.cq = cq;
        this.mode = mode;
        this.wc = WorkCompletion.array(batch);
        this.stall = new Stall(side + " waiting for a completion");
    }

    /** Waits for at least one completion; returns how many are in {@link #get}. */
    int await() {
        failIfFlushed();
        int n;
        if (mode == WaitMode.EVENT) {
            // Keep our own deadline: a wait that returns empty before it (a wake-up without a
            // completion) just waits again.
            long deadline = System.nanoTime() + STALL_NANOS;
            while ((n = cq.await(wc, Stall.TIMEOUT)) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw Stall.timedOut("waiting on the completion queue");
                }
            }
        } else {
            stall.reset();
            while ((n = cq.poll(wc)) == 0) {
                stall.spin();
            }
        }
        return check(n);
    }

    /** Takes whatever completions are there now (maybe none), while still waiting for something. */
    int pollNow() {
        failIfFlushed();
        return check(cq.poll(wc));
    }

    private void failIfFlushed() {
        if (flushed != null) {
            throw new PerfException("the connection went down while this side still waited for work: " + flushed);
        }
    }

    WorkCompletion get(int i) {
        return wc[i];
    }

    private int check(int n) {
        for (int i = 0; i < n; i++) {
            CompletionStatus status = wc[i].status();
            if (status == CompletionStatus.WR_FLUSH_ERR) {
                if (flushed == null) {
                    flushed = new WorkCompletion().copyFrom(wc[i]);
                }
            } else if (status != CompletionStatus.SUCCESS) {
                throw new PerfException("work request failed: " + wc[i]);
            }
        }
        return n;
    }
}
