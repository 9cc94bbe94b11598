package dev.tandem.failover;

import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.QueuePair;

import java.net.InetSocketAddress;
import java.util.List;

/** The first path of a new connection, waiting for the application to accept it onto a QP or reject it. */
final class FailoverConnectionRequest implements ConnectionRequest {
    private final FailoverListener listener;
    private final int adapter;
    private final ConnectionRequest under;
    private final Hello hello;

    FailoverConnectionRequest(FailoverListener listener, int adapter, ConnectionRequest under, Hello hello) {
        this.listener = listener;
        this.adapter = adapter;
        this.under = under;
        this.hello = hello;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return under.remoteAddress();
    }

    @Override
    public byte[] privateData() {
        return hello.data();
    }

    @Override
    public int remoteIrd() {
        return hello.ird();
    }

    @Override
    public int remoteOrd() {
        return hello.ord();
    }

    @Override
    public void accept(QueuePair qp, byte[] privateData) {
        if (!(qp instanceof FailoverQueuePair q) || q.pd().device() != listener.device()) {
            throw new InvalidArgumentException("accept: QP " + qp + " is not a QP of device " + listener.device().name());
        }
        q.setup().acceptFirst(adapter, under, hello, privateData, listener.device().joins().addresses());
    }

    @Override
    public void reject(byte[] privateData) {
        byte[] data = privateData == null ? new byte[0] : privateData;
        int max = listener.device().attributes().maxPrivateData();
        if (data.length > max) {
            throw new InvalidArgumentException("private data of " + data.length + " bytes exceeds the maximum of " + max
                    + " (DeviceAttributes.maxPrivateData)");
        }
        under.reject(new Hello(Hello.REJECT, adapter, hello.connectionId(), 0, 0, 0, 0, listener.device().keys().incarnation(), 0,
                Hello.THIS_PATH, 0, 0, 0, listener.device().config().nodeName(), List.of(), data).encode());
    }

    @Override
    public String toString() {
        return "ConnectionRequest[from " + remoteAddress() + ", node " + hello.node() + "]";
    }
}
