package dev.tandem.verbs.conformance;

import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connection management: listen, connect, accept, reject, private data, timeouts, read depths. */
public abstract class ConnectionConformance extends ConformanceBase {

    private int maxPrivateData() {
        return Math.min(adapter(0).attributes().maxPrivateData(), adapter(1).attributes().maxPrivateData());
    }

    @Test
    void connectAndAcceptCarryPrivateDataBothWaysAndReachRts() {
        Endpoint a = endpoint(0);
        Endpoint p = endpoint(1);
        assertEquals(QpState.INIT, a.qp.state(), "a new QP is in INIT");
        assertNull(a.qp.localAddress(), "an unconnected QP has no local address");
        assertNull(a.qp.remoteAddress(), "an unconnected QP has no remote address");
        connect(a, p); // asserts the private data both ways and RTS on both sides
        assertEquals(a.region.rkey(), p.peerRkey(), "rkey carried in the connect private data");
        assertEquals(p.region.rkey(), a.peerRkey(), "rkey carried in the accept private data");
        assertEquals(QpState.RTS, a.qp.state());
        assertEquals(QpState.RTS, p.qp.state());
    }

    @Test
    void addressesOfBothEndsMatch() {
        ConnectedPair pair = connectedPair();
        InetSocketAddress activeLocal = pair.active().qp.localAddress();
        InetSocketAddress passiveLocal = pair.passive().qp.localAddress();
        assertNotNull(activeLocal, "connected QP's local address");
        assertNotNull(passiveLocal, "accepted QP's local address");
        assertEquals(listener().localAddress(), pair.active().qp.remoteAddress(), "the connecting QP's peer is the listener's address");
        assertEquals(activeLocal, pair.passive().qp.remoteAddress(), "the accepting QP's peer is the connecting QP's local address");
        assertEquals(activeLocal, pair.request().remoteAddress(), "ConnectionRequest.remoteAddress is the initiator's address");
        assertEquals(provider().listenAddress(0).getAddress(), activeLocal.getAddress(),
                "the connection leaves from adapter 0's address");
        assertEquals(provider().listenAddress(1).getAddress(), passiveLocal.getAddress(),
                "the connection arrives at adapter 1's address");
        assertNotEquals(0, listener().localAddress().getPort(), "a listener on port 0 reports the port it got");
    }

    @Test
    void emptyPrivateDataBothWays() {
        Endpoint a = endpoint(0);
        Endpoint p = endpoint(1);
        Listener l = listener();
        Future<ConnectionRequest> accepted = async(() -> {
            ConnectionRequest r = l.accept(bound());
            r.accept(p.qp, new byte[0]);
            return r;
        });
        byte[] reply = a.qp.connect(l.localAddress(), new byte[0], bound());
        ConnectionRequest r = join(accepted, "accept with empty private data");
        assertEquals(0, reply.length, "connect() returns the empty accept private data");
        assertEquals(0, r.privateData().length, "the request carries the empty connect private data");
        awaitState(a.qp, QpState.RTS, "connecting QP");
        awaitState(p.qp, QpState.RTS, "accepting QP");
    }

    @Test
    void privateDataOfExactlyTheLimitPassesBothWays() {
        int max = maxPrivateData();
        assertTrue(max >= 12, "maxPrivateData " + max + " must fit the suite's 12-byte key exchange");
        byte[] out = Bytes.pattern(max, 1);
        byte[] back = Bytes.pattern(max, 2);
        Endpoint a = endpoint(0);
        Endpoint p = endpoint(1);
        Listener l = listener();
        Future<ConnectionRequest> accepted = async(() -> {
            ConnectionRequest r = l.accept(bound());
            r.accept(p.qp, back);
            return r;
        });
        byte[] reply = a.qp.connect(l.localAddress(), out, bound());
        ConnectionRequest r = join(accepted, "accept with " + max + " bytes of private data");
        assertArrayEquals(out, r.privateData(), max + " bytes of connect private data");
        assertArrayEquals(back, reply, max + " bytes of accept private data");
    }

    @Test
    void privateDataOverTheLimitOnConnectIsInvalidArgumentAndSendsNothing() {
        int tooMany = maxPrivateData() + 1;
        Endpoint a = endpoint(0);
        Listener l = listener();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> a.qp.connect(l.localAddress(), new byte[tooMany], bound()));
        assertTrue(e.getMessage().contains(String.valueOf(tooMany)), "message names the size " + tooMany + ": " + e.getMessage());
        assertEquals(QpState.INIT, a.qp.state(), "a rejected connect call leaves the QP in INIT");
        assertThrows(ConnectionTimeoutException.class, () -> l.accept(QUIET),
                "no connection request reaches the listener when connect's arguments are invalid");
    }

    @Test
    void privateDataOverTheLimitOnAcceptAndRejectIsInvalidArgument() {
        int tooMany = maxPrivateData() + 1;
        Endpoint a = endpoint(0);
        Endpoint p = endpoint(1);
        Listener l = listener();
        Future<byte[]> connected = async(() -> a.qp.connect(l.localAddress(), Bytes.ascii("hello"), bound()));
        ConnectionRequest r = l.accept(bound());
        InvalidArgumentException onAccept = assertThrows(InvalidArgumentException.class, () -> r.accept(p.qp, new byte[tooMany]));
        assertTrue(onAccept.getMessage().contains(String.valueOf(tooMany)), "message names the size: " + onAccept.getMessage());
        InvalidArgumentException onReject = assertThrows(InvalidArgumentException.class, () -> r.reject(new byte[tooMany]));
        assertTrue(onReject.getMessage().contains(String.valueOf(tooMany)), "message names the size: " + onReject.getMessage());
        assertEquals(QpState.INIT, p.qp.state(), "a refused accept call leaves the QP in INIT");
        r.accept(p.qp, Bytes.ascii("welcome"));
        assertArrayEquals(Bytes.ascii("welcome"), join(connected, "connect after the request was accepted"),
                "the request can still be accepted after invalid calls");
    }

    @Test
    void rejectWithPrivateDataSurfacesAsConnectionRejectedException() {
        Endpoint a = endpoint(0);
        Listener l = listener();
        Future<byte[]> connecting = async(() -> a.qp.connect(l.localAddress(), Bytes.ascii("may I?"), bound()));
        ConnectionRequest r = l.accept(bound());
        assertArrayEquals(Bytes.ascii("may I?"), r.privateData());
        r.reject(Bytes.ascii("no: busy"));
        ConnectionRejectedException e = assertThrows(ConnectionRejectedException.class, () -> join(connecting, "connect to be rejected"));
        assertArrayEquals(Bytes.ascii("no: busy"), e.privateData(), "the reject's private data");
        assertNotEquals(QpState.RTS, a.qp.state(), "a rejected QP is not connected");
    }

    @Test
    void rejectWithoutPrivateDataGivesEmptyPrivateData() {
        Endpoint a = endpoint(0);
        Listener l = listener();
        Future<byte[]> connecting = async(() -> a.qp.connect(l.localAddress(), new byte[0], bound()));
        l.accept(bound()).reject(new byte[0]);
        ConnectionRejectedException e = assertThrows(ConnectionRejectedException.class, () -> join(connecting, "connect to be rejected"));
        assertEquals(0, e.privateData().length, "private data of a reject without any");
    }

    @Test
    void listenerKeepsWorkingAfterARejection() {
        Endpoint rejected = endpoint(0);
        Listener l = listener();
        Future<byte[]> connecting = async(() -> rejected.qp.connect(l.localAddress(), new byte[0], bound()));
        l.accept(bound()).reject(Bytes.ascii("not you"));
        assertThrows(ConnectionRejectedException.class, () -> join(connecting, "connect to be rejected"));
        ConnectedPair pair = connectedPair();
        sendAndReceive(pair, 7);
    }

    @Test
    void connectTimesOutWhenTheListenerNeverAccepts() {
        Endpoint a = endpoint(0);
        Listener l = listener(); // the application never calls accept()
        Duration timeout = Duration.ofMillis(500);
        long start = System.nanoTime();
        Future<byte[]> connecting = async(() -> a.qp.connect(l.localAddress(), Bytes.ascii("anyone?"), timeout));
        assertThrows(ConnectionTimeoutException.class, () -> join(connecting, "connect to time out after " + timeout));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= timeout.toMillis() - 50, "connect gave up after " + tookMs + " ms, before its timeout of " + timeout);
        assertNotEquals(QpState.RTS, a.qp.state(), "a QP whose connect timed out is not connected");
    }

    @Test
    void connectTimesOutWhenTheApplicationTakesTheRequestButNeverAnswers() {
        Endpoint a = endpoint(0);
        Listener l = listener();
        Duration timeout = Duration.ofMillis(500);
        Future<byte[]> connecting = async(() -> a.qp.connect(l.localAddress(), Bytes.ascii("anyone?"), timeout));
        ConnectionRequest r = l.accept(bound()); // taken, never accepted nor rejected
        assertNotNull(r);
        assertThrows(ConnectionTimeoutException.class, () -> join(connecting, "connect to time out after " + timeout));
    }

    @Test
    void acceptWithoutARequestTimesOut() {
        Listener l = listener();
        Duration timeout = Duration.ofMillis(200);
        long start = System.nanoTime();
        ConnectionTimeoutException e = assertThrows(ConnectionTimeoutException.class, () -> l.accept(timeout));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertNotNull(e.getMessage());
        assertTrue(tookMs >= timeout.toMillis() - 20, "accept gave up after " + tookMs + " ms, before its timeout of " + timeout);
    }

    @Test
    void closingTheListenerWakesAThreadBlockedInAccept() {
        Listener l = listener();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().name("blocked-in-accept").start(() -> {
            try {
                l.accept(Duration.ofMinutes(5));
                outcome.complete(null);
            } catch (Throwable x) {
                outcome.complete(x);
            }
        });
        awaitBlocked(t, "a thread calling Listener.accept with a 5 minute timeout");
        l.close();
        Throwable x = join(outcome, "Listener.close() to wake the thread blocked in accept");
        assertInstanceOf(ListenerClosedException.class, x, "what accept threw when the listener was closed");
        assertThrows(ListenerClosedException.class, () -> l.accept(Duration.ofMillis(10)), "accept on a closed listener");
    }

    @Test
    void connectingToAClosedListenerFails() {
        Listener l = closeAtEnd(adapter(1).listen(provider().listenAddress(1), 4));
        InetSocketAddress address = l.localAddress();
        l.close();
        Endpoint a = endpoint(0);
        Future<byte[]> connecting = async(() -> a.qp.connect(address, new byte[0], bound()));
        ConnectionException e = assertThrows(ConnectionException.class, () -> join(connecting, "connect to a closed listener to fail"));
        assertFalse(e instanceof ConnectionRejectedException, "nobody rejected the request, yet got " + e);
        assertNotEquals(QpState.RTS, a.qp.state());
    }

    @Test
    void twoConnectionsThroughOneListenerAreIndependent() {
        ConnectedPair first = connectedPair();
        ConnectedPair second = connectedPair();
        assertNotEquals(first.passive().qp.qpNumber(), second.passive().qp.qpNumber());
        sendAndReceive(second, 21);
        sendAndReceive(first, 22);
    }

    @Test
    void connectionRequestCarriesTheInitiatorsReadDepthsAndNegotiationRespectsThem() {
        ConnectedPair pair = connectedPair(
                EndpointSpec.defaults().withQp(c -> c.withReadDepths(3, 2)),
                EndpointSpec.defaults().withQp(c -> c.withReadDepths(5, 4)));
        assertEquals(3, pair.request().remoteIrd(), "initiator's IRD as the request reports it");
        assertEquals(2, pair.request().remoteOrd(), "initiator's ORD as the request reports it");
        int activeOrd = pair.active().qp.ord();
        int passiveOrd = pair.passive().qp.ord();
        assertTrue(activeOrd >= 1 && activeOrd <= 2, "active ORD " + activeOrd + " must be 1..min(own ORD 2, peer IRD 5)");
        assertTrue(passiveOrd >= 1 && passiveOrd <= 3, "passive ORD " + passiveOrd + " must be 1..min(own ORD 4, peer IRD 3)");
        assertTrue(pair.active().qp.ird() <= 3, "active IRD " + pair.active().qp.ird() + " must not exceed its configured 3");
        assertTrue(pair.passive().qp.ird() <= 5, "passive IRD " + pair.passive().qp.ird() + " must not exceed its configured 5");
        assertTrue(pair.passive().qp.ird() >= activeOrd, "passive IRD " + pair.passive().qp.ird() + " must serve the active ORD " + activeOrd);
        assertTrue(pair.active().qp.ird() >= passiveOrd, "active IRD " + pair.active().qp.ird() + " must serve the passive ORD " + passiveOrd);
    }

    @Test
    void communicationEstablishedIsRaisedOnBothSides() {
        ConnectedPair pair = connectedPair();
        awaitAsyncEvent(pair.active().device, AsyncEventType.COMMUNICATION_ESTABLISHED, pair.active().qp);
        awaitAsyncEvent(pair.passive().device, AsyncEventType.COMMUNICATION_ESTABLISHED, pair.passive().qp);
    }

    @Test
    void connectingAConnectedQpIsInvalidState() {
        ConnectedPair pair = connectedPair();
        InvalidStateException e = assertThrows(InvalidStateException.class,
                () -> pair.active().qp.connect(listener().localAddress(), new byte[0], bound()));
        assertTrue(e.getMessage().contains("RTS"), "message names the QP's state RTS: " + e.getMessage());
        assertEquals(QpState.RTS, pair.active().qp.state(), "the connected QP is unaffected");
    }

    @Test
    void acceptingOntoAQpThatIsNotInInitIsInvalidState() {
        ConnectedPair pair = connectedPair();
        Endpoint a = endpoint(0);
        Listener l = listener();
        Future<byte[]> connecting = async(() -> a.qp.connect(l.localAddress(), new byte[0], bound()));
        ConnectionRequest r = l.accept(bound());
        InvalidStateException e = assertThrows(InvalidStateException.class, () -> r.accept(pair.passive().qp, new byte[0]));
        assertTrue(e.getMessage().contains("RTS"), "message names the QP's state RTS: " + e.getMessage());
        Endpoint fresh = endpoint(1);
        r.accept(fresh.qp, new byte[0]);
        join(connecting, "connect after the request was accepted onto a fresh QP");
        awaitState(fresh.qp, QpState.RTS, "the fresh accepting QP");
    }

    @Test
    void acceptingOntoAQpOfAnotherAdapterIsInvalidArgument() {
        Endpoint a = endpoint(0);
        Endpoint wrongAdapter = endpoint(0);
        Listener l = listener();
        Future<byte[]> connecting = async(() -> a.qp.connect(l.localAddress(), new byte[0], bound()));
        ConnectionRequest r = l.accept(bound());
        assertThrows(InvalidArgumentException.class, () -> r.accept(wrongAdapter.qp, new byte[0]),
                "accepting onto a QP of adapter 0 a request that arrived at adapter 1");
        r.reject(new byte[0]);
        assertThrows(ConnectionRejectedException.class, () -> join(connecting, "connect to be rejected"));
    }

    /** One Send from the active to the passive side, checked byte for byte. */
    private void sendAndReceive(ConnectedPair pair, int seed) {
        postReceive(pair.passive(), 500 + seed, 0, 1024);
        Bytes.fill(pair.active().mem(), 0, 300, seed);
        postSend(pair.active(), 600 + seed, 0, 300, SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "the Send's completion"), 600 + seed,
                CompletionStatus.SUCCESS, CompletionOpcode.SEND, "send");
        WorkCompletion wc = awaitCompletion(pair.passive().cq, "the receive completion");
        assertReceived(wc, 500 + seed, 300, pair.passive().qp, "receive");
        Bytes.assertPattern(pair.passive().mem(), 0, 300, seed, "received bytes");
    }
}
