package dev.tandem.tools.perf;

import dev.tandem.verbs.RdmaDevice;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Both sides in one process: two adapters on loopback, the server on a named thread, the client on
 * the caller's thread. The server's allocation figures join the client's results.
 */
public final class PerfLoopback {
    public static final String CLIENT_IP = "127.0.1.1";
    public static final String SERVER_IP = "127.0.1.2";
    private static final Duration JOIN_TIMEOUT = Stall.TIMEOUT.multipliedBy(2);

    private PerfLoopback() {
    }

    public static MeasuredRun run(PerfSettings s, AdapterOpener opener, PerfProgress progress) {
        RdmaDevice client = opener.open(CLIENT_IP, s.crc());
        RdmaDevice server = null;
        try {
            server = opener.open(SERVER_IP, s.crc());
            return run(s, client, server, progress);
        } finally {
            try {
                if (server != null) {
                    server.close();
                }
            } finally {
                client.close();
            }
        }
    }

    private static MeasuredRun run(PerfSettings s, RdmaDevice client, RdmaDevice server, PerfProgress progress) {
        PerfServer perfServer = PerfServer.listen(server, new InetSocketAddress(SERVER_IP, s.port()), s.crc());
        ServerThread serving = new ServerThread(perfServer);
        serving.thread.start();
        MeasuredRun measured;
        try {
            measured = PerfClient.run(client, address(CLIENT_IP), perfServer.address(), s, progress);
        } catch (RuntimeException e) {
            // Unblock the server (its waits fail once its adapter closes), then report both sides.
            server.close();
            serving.finish();
            if (serving.failure != null) {
                e.addSuppressed(serving.failure);
            }
            throw e;
        } finally {
            perfServer.close();
        }
        serving.finish();
        return merge(measured, serving.result());
    }

    private static MeasuredRun merge(MeasuredRun measured, ServedRun served) {
        List<SizeResult> merged = new ArrayList<>();
        for (int i = 0; i < measured.results().size(); i++) {
            SizeResult r = measured.results().get(i);
            double tandemServer = i < served.tandem().size() ? served.tandem().get(i).allocPerOp() : Double.NaN;
            double tcpServer = i < served.tcp().size() ? served.tcp().get(i).allocPerOp() : Double.NaN;
            merged.add(new SizeResult(r.phase(), r.tandem(), r.tandemClientAllocPerOp(), tandemServer, r.tcp(), r.tcpClientAllocPerOp(), tcpServer));
        }
        return new MeasuredRun(measured.local(), measured.remote(), measured.crc(), merged);
    }

    static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new PerfException("'" + ip + "' is not an IP address", e);
        }
    }

    /** The server side on its own named thread; its result or failure is read after {@link #finish}. */
    private static final class ServerThread {
        private final Thread thread;
        private volatile ServedRun result;
        private volatile Throwable failure;

        ServerThread(PerfServer server) {
            this.thread = Thread.ofPlatform().name("tandem-perf-server").daemon(true).unstarted(() -> {
                try {
                    result = server.serveOne(Stall.TIMEOUT);
                } catch (Throwable t) {
                    failure = t;
                }
            });
        }

        /** Waits for the thread to end; a thread that does not end in time counts as a failure. */
        void finish() {
            try {
                if (!thread.join(JOIN_TIMEOUT)) {
                    failure = new PerfException("the server thread did not finish within " + JOIN_TIMEOUT.toSeconds() + " s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = new PerfException("interrupted while waiting for the server thread", e);
            }
        }

        ServedRun result() {
            if (failure != null) {
                throw new PerfException("the server side failed: " + failure.getMessage(), failure);
            }
            return result;
        }
    }
}
