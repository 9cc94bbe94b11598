package dev.tandem.tools.perf.rdma;

import dev.tandem.verbs.WorkRequest;

/**
 * The end of a one-sided phase (write_bw, read_lat): the server learns nothing from RDMA Writes or
 * Reads, so the client sends "done" carrying how many iterations it ran (warm-up included), and
 * the server answers "ack". Both are control Sends of the status block's word.
 */
final class OneSided {
    static final int CONTROL_RECEIVES = 4;

    private OneSided() {
    }

    static void prepare(RdmaPattern p) {
        p.postControlReceives(CONTROL_RECEIVES);
    }

    static WorkRequest control(RdmaEndpoint ep) {
        return ep.controlSend(2);
    }

    /** Client: tell the server the phase is over after {@code iterations}, and wait for its answer. */
    static void finishClient(RdmaPattern p, WorkRequest done, long iterations) {
        p.ep.status().controlOut(iterations);
        long target = p.received + 1;
        p.post(done);
        p.awaitReceived(target);
        p.awaitSendsDone();
    }

    /** Server: wait for the client's "done", answer it; returns the iterations the client ran. */
    static long serve(RdmaPattern p, WorkRequest ack) {
        p.awaitReceived(p.received + 1);
        long iterations = p.ep.status().controlIn();
        p.post(ack);
        return iterations;
    }
}
