package dev.tandem.iwarp;

import dev.tandem.iwarp.ras.AdapterRas;
import dev.tandem.iwarp.ras.QpCounters;
import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.provider.SendQueue;
import dev.tandem.provider.StagEntry;
import dev.tandem.provider.StagTable;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.WorkRequest;

import java.io.IOException;

/**
 * What the {@link Transmitter} and {@link Receiver} of one connection may touch of their QP and
 * adapter, and nothing more: the send queue with its completer, the receive source, the STag
 * resolver, the counters, and the QP's error path. {@link IwQueuePair} implements it; the engine
 * code never reaches through it to the device.
 */
interface QpContext {

    int qpNumber();

    /** True once the QP is in ERROR (its work is being or was flushed). */
    boolean inError();

    /** True while the QP drains its send queue (SQD). */
    boolean isDraining();

    /** Largest scatter/gather list of a send work request. */
    int maxSendSge();

    /** Largest scatter/gather list of a receive (the SRQ's, when the QP takes receives from one). */
    int maxReceiveSge();

    SendQueue sendQueue();

    /** Completes the send queue's finished entries, in order. */
    SendQueue.Emitter sendEmitter();

    /** The send queue drained while the QP was in SQD: raise SQ_DRAINED. */
    void sendQueueDrained();

    /** Runs a bind or local invalidate at the head of the send queue and completes it. */
    void executeLocal(long position, WorkRequest wr);

    /** The next posted receive (of the QP or its SRQ) for an arriving Send; null when none is posted. */
    ReceiveRequest takeReceive();

    void completeReceive(ReceiveRequest r, CompletionStatus status, long length, int flags, int invalidated, int vendorError);

    /** Invalidates {@code stag} for a peer's Send with Invalidate; the Terminate to answer with, or null. */
    TerminateCode remoteInvalidate(int stag);

    /** True when a tagged access through {@code e} is this QP's to make: the same PD, and a window bound to this QP. */
    boolean associated(StagEntry e);

    /** The adapter's live STags. */
    StagTable stags();

    QpCounters counters();

    /** The adapter's iWARP counters (Terminates, CRC errors). */
    AdapterRas ras();

    /** Moves the QP to ERROR once (Terminate or close, flush both queues, raise the event). */
    void fail(Failure f);

    /** As {@link #fail(Failure)}; {@code inProgress} completes the receive the engine had taken, first. */
    void fail(Failure f, Runnable inProgress);

    void connectionLost(IOException e);

    void connectionLost(IOException e, Runnable inProgress);

    /** True while application threads drive the adapter's progress from their polls. */
    boolean pollersActive();

    /** Wakes the engine thread serving the adapter. */
    void wakeEngine();
}
