package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.BandwidthSamples;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfException;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.tools.perf.Span;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;

/**
 * One perf test's traffic over a connected {@link RdmaEndpoint}, for one side. The life of a
 * pattern: {@link #prepareReceives()} before connecting, {@link #connected} with the peer's key,
 * then {@link #client} or {@link #server} once per phase, then {@link #drain()}.
 *
 * <p>The client decides when a phase ends (after a count of iterations, or at a time in duration
 * mode) and tells the server in band: a "done" control Send carrying the count (write_bw,
 * read_lat), a Send of no bytes (send_bw, send_lat, whose data is never empty), a control Send the
 * write_lat server reaps while it watches its byte. The server counts what it served. Every phase
 * then ends with the client receiving something from the server (an ack, the last credit, an empty
 * reply), so the client knows the server is done and both sides move to the next phase together.
 * Work requests are built before the measured loop; the loop itself allocates nothing.
 */
public abstract sealed class RdmaPattern permits WriteBwPattern, SendBwPattern, WriteLatPattern, SendLatPattern, ReadLatPattern {
    protected final RdmaEndpoint ep;
    protected final QueuePair qp;
    protected final CompletionWaiter waiter;
    /** Receive requests, reposted by wrId when they complete. */
    protected ReceiveRequest[] receives = new ReceiveRequest[0];
    protected int peerRkey;
    protected int peerArea;
    protected int peerRxDepth;
    /** Send-queue requests posted (all signalled) and completed, since the connection began. */
    protected long postedSends;
    protected long completedSends;
    /** Receives completed since the connection began. */
    protected long received;

    protected RdmaPattern(RdmaEndpoint ep) {
        this.ep = ep;
        this.qp = ep.qp();
        this.waiter = ep.waiter();
    }

    /**
     * The pattern of {@code test} for one side of {@code ep}.
     *
     * @param rxDepth receives the send_bw server keeps posted (see {@link #receiveDepth})
     */
    public static RdmaPattern of(PerfTest test, RdmaEndpoint ep, int txDepth, boolean client, int rxDepth) {
        return switch (test) {
            case WRITE_BW -> new WriteBwPattern(ep, txDepth);
            case SEND_BW -> new SendBwPattern(ep, txDepth, client, rxDepth);
            case WRITE_LAT -> new WriteLatPattern(ep);
            case SEND_LAT -> new SendLatPattern(ep);
            case READ_LAT -> new ReadLatPattern(ep);
        };
    }

    /** Send queue slots a side of {@code test} needs. */
    public static int sendDepth(PerfTest test, int txDepth) {
        return (test.isBandwidth() ? txDepth : 8) + 8;
    }

    /** Receive queue slots a side of {@code test} needs; {@code rxDepth} is the send_bw server's window. */
    public static int receiveDepth(PerfTest test, boolean client, int rxDepth) {
        return switch (test) {
            case SEND_BW -> client ? SendBwPattern.CREDIT_SLOTS : rxDepth;
            case SEND_LAT -> SendLatPattern.RECEIVES;
            case WRITE_BW, READ_LAT -> OneSided.CONTROL_RECEIVES;
            case WRITE_LAT -> 1;
        };
    }

    /** Posts the receives this side keeps posted; called before connect/accept. */
    public abstract void prepareReceives();

    /** The peer's region key, its area size, and (send_bw) how many receives it keeps posted. */
    public void connected(int rkey, int area, int rxDepth) {
        this.peerRkey = rkey;
        this.peerArea = area;
        this.peerRxDepth = rxDepth;
        waiter.watch(ep.probe(rkey, area));
    }

    /** Runs one phase as the measuring side. */
    public abstract SideResult client(Phase phase);

    /** Runs one phase as the serving side. */
    public abstract SideResult server(Phase phase);

    /** Waits until every request this side posted has completed, the waiter's probe too (before closing). */
    public void drain() {
        awaitSendsDone();
        waiter.settle();
    }

    /** Posts {@code count} receives for control Sends (they land in the status block's control-in word). */
    protected final void postControlReceives(int count) {
        receives = new ReceiveRequest[count];
        for (int i = 0; i < count; i++) {
            receives[i] = ep.controlReceive(i);
            qp.postReceive(receives[i]);
        }
    }

    protected final void postReceives(int count, int offsetStep, int length) {
        receives = new ReceiveRequest[count];
        for (int i = 0; i < count; i++) {
            receives[i] = new ReceiveRequest(i, ep.receiveSge((long) i * offsetStep, length));
            qp.postReceive(receives[i]);
        }
    }

    protected final void post(WorkRequest w) {
        qp.postSend(w);
        postedSends++;
    }

    /** Waits for at least one completion and accounts for all that came. */
    protected final void awaitAny() {
        process(waiter.await());
    }

    /** Accounts for whatever completions are there now. */
    protected final void pollAny() {
        process(waiter.pollNow());
    }

    protected final void awaitReceived(long target) {
        while (received < target) {
            awaitAny();
        }
    }

    protected final void awaitSendsDone() {
        while (completedSends < postedSends) {
            awaitAny();
        }
    }

    /** Keeps at least one send slot free, reaping completions if needed. */
    protected final void awaitSendSlot(int depth) {
        while (postedSends - completedSends >= depth) {
            awaitAny();
        }
    }

    /**
     * Keeps up to {@code depth} requests in flight (while {@link #mayPost} allows) for {@code span},
     * then waits for all of them; notes each post and completion time when {@code samples} is given.
     *
     * @return how many requests were posted (and completed)
     */
    protected final long stream(WorkRequest request, Span span, int depth, BandwidthSamples samples) {
        expectIdle();
        long base = completedSends;
        long posted = 0;
        long start = System.nanoTime();
        long now = start;
        boolean more = span.goOn(0, 0);
        while (more || completedSends - base < posted) {
            while (more && postedSends - completedSends < depth && mayPost()) {
                if (samples != null) {
                    samples.posted(posted, System.nanoTime());
                }
                post(request);
                posted++;
                more = span.goOn(posted, now - start);
            }
            long before = completedSends;
            awaitAny();
            now = System.nanoTime();
            if (samples != null) {
                for (long k = before; k < completedSends; k++) {
                    samples.completed(k - base, now);
                }
            }
            more = more && span.goOn(posted, now - start);
        }
        return posted;
    }

    /** Whether {@link #stream} may post one more request now (flow control beyond the send queue). */
    protected boolean mayPost() {
        return true;
    }

    protected final void expectIdle() {
        if (completedSends != postedSends) {
            throw new PerfException((postedSends - completedSends) + " requests still outstanding at the start of a phase");
        }
    }

    /** A receive completed: by default reposts its buffer. */
    protected void onReceive(WorkCompletion c) {
        qp.postReceive(receives[(int) c.wrId()]);
    }

    /** Accounts for {@code n} completions; reaping any is progress, which the peer's probes see. */
    private void process(int n) {
        if (n > 0) {
            ep.status().advance();
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion c = waiter.get(i);
            if (c.opcode() != CompletionOpcode.RECV) {
                // a flushed request is done too: one the peer got, answered and closed after may be
                // flushed before it completed here; a wait for more fails on the flush (the waiter)
                completedSends++;
            } else if (c.status() != CompletionStatus.WR_FLUSH_ERR) {
                received++;
                onReceive(c);
            }
        }
    }
}
