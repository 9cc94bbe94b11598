/**
 * A checked stream: over one connected pair of queue pairs of any {@link dev.tandem.verbs.RdmaDevice}, a
 * sender posts Sends that carry a sequence number, their length and a CRC32C, and RDMA Writes of blocks
 * into a ring in the receiver's memory that a later Send announces; the receiver checks every message
 * and every announced block and counts what was lost, duplicated, reordered or corrupt, and every
 * completion in error either side saw. The {@link dev.tandem.failover.check.Verdict} says whether the
 * stream was clean. The fail-over demo and the fault-matrix tests prove with it that a fail-over loses
 * nothing; it uses only {@code dev.tandem.verbs}, so it checks a plain adapter just as well.
 *
 * <p>{@link dev.tandem.failover.check.CheckedStream} drives both sides in one process. Where they run in
 * two (the lab demo's node processes), {@link dev.tandem.failover.check.StreamReceiver#on} and
 * {@link dev.tandem.failover.check.StreamSender#on} make one side each, the receiver's
 * {@link dev.tandem.failover.check.RingOffer} travels as bytes in the private data of its accept, each side
 * gives its half of the verdict, and {@link dev.tandem.failover.check.StreamHalves} joins the halves and
 * judges them as the in-process stream does.
 */
package dev.tandem.failover.check;
