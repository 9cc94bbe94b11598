package dev.tandem.tools.perf;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

/** The local address the operating system would use to reach a host (a connected UDP socket sends nothing). */
public final class LocalRoute {
    private LocalRoute() {
    }

    public static InetAddress towards(InetAddress host) {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.connect(new InetSocketAddress(host, 9));
            return ((InetSocketAddress) ch.getLocalAddress()).getAddress();
        } catch (IOException e) {
            throw new PerfException("no route to " + host.getHostAddress() + " (" + e.getMessage() + "); give the local adapter address with --local IP", e);
        }
    }
}
