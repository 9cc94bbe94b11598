package dev.tandem.tools.perf;

import dev.tandem.tools.perf.tcp.TcpBaselineServer;

import java.net.InetAddress;

/** The TCP baseline's listener: a free port on the server adapter's address. */
final class TcpBaselineListener implements BaselineListener {
    private final TcpBaselineServer server;

    private TcpBaselineListener(TcpBaselineServer server) {
        this.server = server;
    }

    static TcpBaselineListener open(InetAddress local) {
        return new TcpBaselineListener(TcpBaselineServer.open(local));
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public BaselineSide accept(Hello.Client hello, int area) {
        return new TcpBaselineSide(server.accept(hello.waitMode(), area), hello.test(), false);
    }

    @Override
    public void close() {
        server.close();
    }
}
