package dev.tandem.failover;

import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One path of a connection: an adapter QP of this side connected to one adapter of the peer. Both
 * sides name it by the same {@link #id}: {@code c * MAX + s}, where {@code c} is the connecting
 * side's adapter and {@code s} the accepting side's ({@link Paths#id}). A switched node has a path
 * from each of its adapters to each of the peer's (cross paths included); a switchless node one per
 * cable. The connecting side sets a path up, and again after it failed, each time with the next
 * {@link #generation}, which both sides keep: a REPORT or a JOIN names the generation it means, so
 * news of an earlier set-up never touches a later one.
 *
 * <p>The connection's lock guards what changes here, except the heartbeat stamp (any poller may take
 * a probe's answer) and {@link #qp} / {@link #up}, which completions read without it.
 */
final class Path {
    /** Its id ({@link Paths#NONE} for the first path while its set-up waits for the peer's adapter). */
    int id;
    /** This side's adapter. */
    final int local;
    /** The peer's adapter (-1 for the first path while its set-up waits for the peer's answer). */
    int remote;
    /** The adapter QP now, or null while none (not set up yet, or its adapter was released). */
    volatile QueuePair qp;
    /** The set-up this QP belongs to (the connecting side counts them, from 1). */
    int generation;
    /** Set up and not failed: it carries work or stands by. */
    volatile boolean up;
    /** Why it failed last, or null. */
    String downCause;
    /**
     * When its heartbeat probe went out, 0 while none is outstanding. The monitor sets it before the
     * probe is posted; whichever thread polls the probe's answer clears it (the two race: atomic).
     */
    final AtomicLong heartbeatSent = new AtomicLong();
    /**
     * The adapter QP whose end (its error or DISCONNECTED event) the adapter reported: an adapter raises
     * it after the QP's last completion, so every completion of that QP is in its CQ by then. The monitor sets it.
     */
    volatile QueuePair endReported;
    /** When the peer closed this QP without a BYE (0 while it did not), which QP, and why. */
    long closedSince;
    QueuePair closedQp;
    String closedCause;

    Path(int id, int local, int remote) {
        this.id = id;
        this.local = local;
        this.remote = remote;
    }

    /** Whether {@code q} is this path's QP now (evidence about an earlier QP says nothing about the path). */
    boolean holds(QueuePair q) {
        return q != null && q == qp;
    }

    /** Whether it is up and its QP runs (RTS): a path records can be written over. */
    boolean runs() {
        QueuePair q = qp;
        return up && q != null && q.state() == QpState.RTS;
    }

    /**
     * Whether its QP may still give the work on it an outcome of its own: it is up and its QP runs (its
     * end, a Terminate or the peer's close, may be on its way), or it ended and the adapter has not
     * reported that yet (the ending QP's completions, a receive refused with REM_INV_REQ_ERR, may still
     * be coming). A flush by the layer before that would take the place of the adapter's outcome.
     */
    boolean ending() {
        QueuePair q = qp;
        return up && q != null && (q.state() == QpState.RTS || endReported != q);
    }

    /** Forgets what the last set-up left: a closed-without-BYE in wait, an outstanding probe. */
    void freshSetUp() {
        closedSince = 0;
        closedQp = null;
        closedCause = null;
        downCause = null;
        heartbeatSent.set(0);
    }

    @Override
    public String toString() {
        return "path " + id + " (adapter " + local + " to the peer's adapter " + remote + ")";
    }
}
