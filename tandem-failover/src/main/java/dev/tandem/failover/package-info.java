/**
 * The fail-over device: one RDMA device over several adapters that hides adapter, link and switch
 * failures. Where each part lives:
 *
 * <ul>
 * <li>The device and its resources: {@link dev.tandem.failover.FailoverDevice} (adapters, routes of adapter
 *     QPs to connections, listeners), its PD, regions, windows, SRQ and the first-level CQ
 *     ({@code FirstLevelCq}: the application's CQ over one CQ per adapter).</li>
 * <li>One connection ({@code FailoverQueuePair}, the verbs face) over its paths ({@code Paths}, {@code Path}:
 *     one adapter QP each, connecting adapter times accepting adapter). Its jobs:
 *     {@code PathSetup} (connect, accept, joins, healing), {@code SendPosting} and {@code ReceivePosting}
 *     (what the application posts, logged in {@code SendLog} and {@code ReceiveLog}),
 *     {@code AdapterCompletions} (what the adapters complete, sorted), {@code Proofs} (a Send or Write
 *     completes only once the peer is shown to hold it; {@code ProofSchedule} decides when a proof goes),
 *     {@code Receiving} (every message checked before
 *     delivery), {@code Heartbeats} (silent links).</li>
 * <li>The fail-over protocol: {@code ConnectionFailover} (a path fails; the receives move; the Sends move
 *     when the peer's MIGRATED comes), {@code PeerMail} (REPORT, MIGRATED and BYE through the
 *     {@code Mailbox}, with the arrival marks), {@code ConnectionEnd} (every way a connection ends, and
 *     what is then completed, in posting order).</li>
 * <li>The device's threads, all owned by {@code Monitor} (events of each adapter, the completion pump,
 *     mailboxes and deadlines, the healer: it runs the protocol), and the accept loops of
 *     {@code AdapterListeners}; serviceability in {@code FailoverRas}, {@code FailoverSnapshot} and
 *     {@link dev.tandem.failover.FailoverWatch}.</li>
 * </ul>
 *
 * The wire of the layer: {@code Hello} (private data at set-up), {@code FailoverHeader} (in front of every
 * Send), {@code Mailbox} records (RDMA Writes into the peer's mailbox).
 */
package dev.tandem.failover;
