package dev.tandem.verbs.conformance;

import dev.tandem.verbs.ConnectionRequest;

/**
 * Two connected endpoints: {@code active} on adapter 0 connected to {@code passive} on adapter 1,
 * which accepted the request from its listener. Each learnt the other's region key from the
 * private data of the exchange.
 *
 * @param active                the side that connected
 * @param passive               the side that accepted
 * @param request               the request the passive side accepted
 * @param activeReceivedPrivate the private data {@code connect} returned (the passive side's accept data)
 */
public record ConnectedPair(Endpoint active, Endpoint passive, ConnectionRequest request, byte[] activeReceivedPrivate) {
}
