package dev.tandem.failover.chaos;

/**
 * What both ends know of one stream (the messages one node sends the other on one connection): the
 * sender writes {@link #sent}, {@link #acked}, {@link #finalCount} and {@link #broken}; the receiver writes
 * {@link #delivered}. The harness runs both ends in this process, so the checker can compare the two
 * without asking the transport.
 */
final class StreamState {
    final int connection;
    final int from;
    /** Messages whose Send post returned. */
    volatile int sent;
    /** Highest message number whose signalled Send completed SUCCESS at the sender; -1 for none. */
    volatile int acked = -1;
    /** How many messages the stream will have in all, once the sender stopped making new ones; -1 before. */
    volatile int finalCount = -1;
    /** The sender's connection ended: the receiver waits for nothing more. */
    volatile boolean broken;
    /** Next message number the receiver's application expects (it got every one before, or a gap was reported). */
    volatile int delivered;
    /** Messages whose Send (or named Write, the other set) was posted INLINE: for telling a failure's cause. */
    final java.util.Set<Integer> inlineSends = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final java.util.Set<Integer> inlineWrites = java.util.concurrent.ConcurrentHashMap.newKeySet();

    StreamState(int connection, int from) {
        this.connection = connection;
        this.from = from;
    }

    String name() {
        return "conn" + connection + " " + Nodes.name(from) + "->" + Nodes.name(3 - from);
    }

    @Override
    public String toString() {
        return name() + " sent=" + sent + " final=" + finalCount + " acked=" + acked + " delivered=" + delivered
                + (broken ? " broken" : "");
    }
}
