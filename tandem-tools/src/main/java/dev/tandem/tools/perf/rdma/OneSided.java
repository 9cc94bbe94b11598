package dev.tandem.tools.perf.rdma;

import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/**
 * The end of a one-sided phase (write_bw, read_lat): the server learns nothing from RDMA Writes or
 * Reads, so the client sends "done" and the server answers "ack".
 */
final class OneSided {
    static final int CONTROL_RECEIVES = 4;
    private static final int CONTROL_BYTES = 8;

    private OneSided() {
    }

    static void prepare(RdmaPattern p) {
        p.postReceives(CONTROL_RECEIVES, 0, CONTROL_BYTES);
    }

    static WorkRequest control(RdmaEndpoint ep) {
        return new WorkRequest.Send(2, ep.sendSge(0, CONTROL_BYTES), WrFlags.SIGNALED);
    }

    /** Client: tell the server the phase is over and wait for its answer. */
    static void finishClient(RdmaPattern p, WorkRequest done) {
        long target = p.received + 1;
        p.post(done);
        p.awaitReceived(target);
        p.awaitSendsDone();
    }

    /** Server: wait for the client's "done", answer it. */
    static void serve(RdmaPattern p, WorkRequest ack) {
        p.awaitReceived(p.received + 1);
        p.post(ack);
    }
}
