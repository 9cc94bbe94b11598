package dev.tandem.failover.check;

/**
 * What a sender needs from its receiver: the stream's shape and where the receiver's ring of block
 * slots is (its rkey and tagged offset).
 */
record RingOffer(StreamShape shape, int rkey, long offset) {
}
