package dev.tandem.tools.perf;

import dev.tandem.tools.perf.tcp.TcpLink;
import dev.tandem.tools.perf.tcp.TcpPattern;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/** The TCP baseline's side: a {@link TcpPattern} over one {@link TcpLink}. */
final class TcpBaselineSide implements BaselineSide {
    private final TcpLink link;
    private final TcpPattern pattern;
    private final boolean client;

    TcpBaselineSide(TcpLink link, PerfTest test, boolean client) {
        this.link = link;
        this.pattern = new TcpPattern(test, link);
        this.client = client;
    }

    /** Connects from {@code local} (the adapter's address, so TCP takes the same path) to the server's baseline port. */
    static TcpBaselineSide connect(InetAddress local, InetSocketAddress server, PerfSettings s, int area) {
        return new TcpBaselineSide(TcpLink.connect(local, server, s.waitMode(), area), s.test(), true);
    }

    @Override
    public SideResult run(Phase phase) {
        return client ? pattern.client(phase) : pattern.server(phase);
    }

    @Override
    public void finish() {
        // every TCP exchange of a phase ends with a read: nothing is left in flight
    }

    @Override
    public void close() {
        link.close();
    }
}
